#!/bin/bash -eu
# ClusterFuzzLite build for scrubcheck's own repository. The build logic has one home,
# fuzz/build.sh (also used by OSS-Fuzz and by scrubber projects): this only says what
# to fuzz here, the reference scrubber, which must never fail a property; a crash is a
# bug in it or in the checks.
: "${SRC:?run inside the OSS-Fuzz base-builder-python image}"
export SCRUBCHECK_FUZZ_SCRUBBERS="${SCRUBCHECK_FUZZ_SCRUBBERS:-reference=scrubcheck.scrubbers.reference:ReferenceScrubber}"
export SCRUBCHECK_REPO="${SCRUBCHECK_REPO:-$SRC/scrubcheck}"
exec bash "$SCRUBCHECK_REPO/fuzz/build.sh"
