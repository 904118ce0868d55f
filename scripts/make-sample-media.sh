#!/usr/bin/env bash
# Regenerates the two tiny MP4s the vendor emulator serves (src/emulator/media/).
# Needs ffmpeg with libx264 (Debian: apt-get install -y ffmpeg). Not run by CI:
# the outputs are committed, because CI machines have no ffmpeg.
#   generated.mp4 — what a generation task "produces": a test pattern with a
#                   white "subtitle bar" burnt in near the bottom.
#   erased.mp4    — what subtitle erasure "produces": the same pattern, no bar.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$here/src/emulator/media}"
mkdir -p "$out"

# 2 s, 160x90, 15 fps, H.264 baseline-friendly yuv420p, faststart so players can
# begin before the whole file arrives. -bitexact + fixed metadata keep reruns stable.
common=(-hide_banner -loglevel error -y -f lavfi -i "testsrc2=size=160x90:rate=15:duration=2"
  -c:v libx264 -profile:v baseline -pix_fmt yuv420p -crf 38 -preset veryslow
  -movflags +faststart -map_metadata -1 -fflags +bitexact -flags:v +bitexact -an)

ffmpeg "${common[@]}" -vf "drawbox=x=16:y=70:w=128:h=12:color=white@0.9:t=fill,drawbox=x=24:y=74:w=112:h=4:color=black:t=fill" "$out/generated.mp4"
ffmpeg "${common[@]}" "$out/erased.mp4"

for f in generated erased; do
  size=$(stat -c %s "$out/$f.mp4")
  if [ "$size" -ge 61440 ]; then echo "$f.mp4 is $size bytes, over 60 KB" >&2; exit 1; fi
  # Decode every frame: proves the file plays, not just that it has a header.
  frames=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$out/$f.mp4")
  echo "$f.mp4: $size bytes, $frames frames"
done
