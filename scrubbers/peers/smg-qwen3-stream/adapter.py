"""smg's legacy qwen3 reasoning parser, through the gateway (see engines/smg/adapter.py)."""

import os
import runpy

os.environ["SCRUBCHECK_ENGINE_PARSER"] = "qwen3"
os.environ["SCRUBCHECK_ENGINE_VARIANT"] = "legacy"
runpy.run_path(os.path.join(os.environ["SCRUBCHECK_PEERLOOP_DIR"], "engines", "smg", "adapter.py"),
               run_name="__main__")
