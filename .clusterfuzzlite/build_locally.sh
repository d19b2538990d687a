#!/bin/bash -eu
# Run the ClusterFuzzLite build of this folder without Docker, as far as a machine without
# the OSS-Fuzz images allows, then fuzz the packaged target for a few seconds.
#
#   .clusterfuzzlite/build_locally.sh [SECONDS]        (default 20)
#
# Needs python3 with pip (packages: atheris, pyinstaller, this checkout). Like the image, it
# copies the checkout to $SRC/scrubcheck, sets $SRC, $OUT and $WORK (temporary folders
# unless set), and provides compile_python_fuzzer: a stand-in for the image's script that
# makes the same PyInstaller one-file package and wrapper, without the sanitizer preload
# (no sanitizer runtime here). What it cannot check: the base image itself, ASan/UBSan,
# and the ClusterFuzzLite actions (fuzz/README.md says what is left). Exit 0 when every
# target fuzzed without a crash; the build, corpus and crash files stay in the printed
# folder.
seconds=${1:-20}
root=$(cd "$(dirname "$0")/.." && pwd)
scratch=$(mktemp -d)
export SRC=${SRC:-$scratch/src} OUT=${OUT:-$scratch/out} WORK=${WORK:-$scratch/work}
mkdir -p "$SRC/scrubcheck" "$OUT" "$WORK" "$scratch/bin"
(cd "$root" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$SRC/scrubcheck")

cat > "$scratch/bin/compile_python_fuzzer" <<'STANDIN'
#!/bin/bash -eu
fuzzer=$1
shift
name=$(basename -s .py "$fuzzer")
pyinstaller --distpath "$OUT" --workpath "$WORK/$name" --specpath "$WORK/$name" \
  --onefile --name "$name.pkg" "$@" "$fuzzer"
printf '#!/bin/sh\n# LLVMFuzzerTestOneInput\nexec "$(dirname "$0")/%s.pkg" "$@"\n' "$name" \
  > "$OUT/$name"
chmod +x "$OUT/$name"
STANDIN
chmod +x "$scratch/bin/compile_python_fuzzer"
if ! command -v pip3 > /dev/null; then
  ln -s "$(command -v python3)" "$scratch/bin/python3"
  printf '#!/bin/sh\nexec python3 -m pip "$@"\n' > "$scratch/bin/pip3"
  chmod +x "$scratch/bin/pip3"
fi
PATH="$scratch/bin:$PATH" bash "$SRC/scrubcheck/.clusterfuzzlite/build.sh"

status=0
for target in "$OUT"/*_fuzzer; do
  corpus="$WORK/corpus-$(basename "$target")"
  mkdir -p "$corpus"
  (cd "$corpus" && python3 -m zipfile -e "${target}_seed_corpus.zip" .)
  echo "== $(basename "$target"): fuzzing for $seconds s, outside the build environment"
  env -i HOME="$WORK" PATH=/usr/bin:/bin "$target" "$corpus" -dict="$target.dict" \
    -max_len=1024 -timeout=25 -max_total_time="$seconds" -artifact_prefix="$WORK/" \
    || status=$?
done
echo "out: $OUT"
exit "$status"
