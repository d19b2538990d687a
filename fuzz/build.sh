#!/bin/bash -eu
# Build scrubcheck fuzz targets the way OSS-Fuzz and ClusterFuzzLite expect:
# one executable per scrubber in $OUT, with its seed corpus, dictionary and options.
#
# $SCRUBCHECK_FUZZ_SCRUBBERS lists NAME=SPEC pairs (SPEC as for `scrubcheck --scrubber`,
# module:attr form, so the bundler can see the module). A scrubber project sets it in
# its Dockerfile and installs itself next to scrubcheck before this script runs.
: "${SRC:?run inside the OSS-Fuzz base-builder-python image}" "${OUT:?}"
SCRUBBERS=${SCRUBCHECK_FUZZ_SCRUBBERS:-reference=scrubcheck.scrubbers.reference:ReferenceScrubber}
REPO=${SCRUBCHECK_REPO:-$SRC/scrubcheck}   # a scrubcheck checkout (the Dockerfile puts it there)

pip3 install "$REPO"

for entry in $SCRUBBERS; do
  name=${entry%%=*}
  spec=${entry#*=}
  module=${spec#batch:}; module=${module#splitter:}; module=${module#stream:}
  module=${module%%:*}
  target="$SRC/scrubcheck_${name}_fuzzer.py"
  sed "s|^SCRUBBER = .*|SCRUBBER = \"$spec\"|" "$REPO/fuzz/scrubber_fuzzer.py" > "$target"
  compile_python_fuzzer "$target" \
    --hidden-import "$module" \
    --collect-submodules scrubcheck \
    --collect-data scrubcheck
  python3 -m scrubcheck.hunt.assets "$OUT" "scrubcheck_${name}_fuzzer"
done
