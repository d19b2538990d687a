"""dynamo's qwen3 reasoning parser through its HTTP frontend (see engines/dynamo/adapter.py)."""

import os
import runpy
import sys

os.environ["SCRUBCHECK_ENGINE_PARSER"] = "qwen3"
here = os.path.dirname(os.path.abspath(__file__))
engine = os.path.join(os.environ.get("SCRUBCHECK_PEERLOOP_DIR", os.path.dirname(here)),
                      "engines", "dynamo", "adapter.py")
sys.argv = [engine]
runpy.run_path(engine, run_name="__main__")
