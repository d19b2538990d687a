"""Files a fuzzing infrastructure wants next to a fuzz target: seeds, dictionary, options.

    python -m scrubcheck.hunt.assets OUT_DIR FUZZER_NAME

writes OUT_DIR/FUZZER_NAME_seed_corpus.zip (the shipped corpus as soup inputs
and random structured inputs), OUT_DIR/FUZZER_NAME.dict (every delimiter of
every vocabulary) and OUT_DIR/FUZZER_NAME.options, the names OSS-Fuzz and
ClusterFuzzLite look for (fuzz/build.sh calls this).
"""

from __future__ import annotations

import sys
import tempfile
import zipfile
from pathlib import Path

from scrubcheck.hunt.fuzzing import write_seeds
from scrubcheck.hunt.fuzzinput import dictionary


def write_assets(out_dir: Path, name: str) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    seeds = out_dir / f"{name}_seed_corpus.zip"
    with tempfile.TemporaryDirectory() as scratch:
        write_seeds(Path(scratch) / "seeds")
        with zipfile.ZipFile(seeds, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in sorted((Path(scratch) / "seeds").iterdir()):
                archive.write(path, path.name)
    words = out_dir / f"{name}.dict"
    words.write_text("\n".join(dictionary()) + "\n", encoding="utf-8")
    options = out_dir / f"{name}.options"
    options.write_text(f"[libfuzzer]\ndict = {name}.dict\nmax_len = 1024\ntimeout = 25\n",
                       encoding="utf-8")
    return [seeds, words, options]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print("usage: python -m scrubcheck.hunt.assets OUT_DIR FUZZER_NAME", file=sys.stderr)
        return 2
    for path in write_assets(Path(argv[0]), argv[1]):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
