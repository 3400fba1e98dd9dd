#!/usr/bin/env bash
# The install path a Raspberry Pi owner walks, repeated on Debian 12 arm64 under emulation.
#
#   sudo tools/arm64_check.sh            # everything; output also in data/arm64/check.log
#   ARM64_STEPS="install doctor" ...     # some steps only (see STEPS below)
#   ARM64_WORK=/srv/arm64 ...            # the root (and logs) elsewhere; a root built before
#                                        # (marked .arm64-check-root) is reused, not rebuilt
#
# On a machine others share, run it at the lowest CPU priority; Linux autogroups ignore a
# plain nice, so set the autogroup's too:
#   setsid nice -n 19 tools/arm64_check.sh > arm64.log 2>&1 & echo 19 > /proc/$!/autogroup
#
# It builds a Debian 12 (bookworm) arm64 root with debootstrap, runs it with qemu-user-static
# (the CPU of a Pi 4: Cortex-A72) and does what the README says, with nothing added (as root
# in the root: qemu-user's binfmt entry has no `C` flag, so a setuid sudo cannot work there
# for a plain user; `sudo` as root is a no-op):
#   1. apt's numpy and an apt-built numpy extension first (python3-numpy, python3-bottleneck),
#      as Raspberry Pi OS has them beside its camera stack (picamera2 imports simplejpeg,
#      built the same way);
#   2. the README's block for Debian 12 or another arm64 system, extracted from README.md
#      (the block after `<!-- arm64-check: install -->`), run as written; then the apt-built
#      extension must still import in the venv (a control venv with numpy 2 shows it would not);
#   3. `uno-table doctor`, `detect --json` on the shared real photos (card names compared with
#      this machine's own run), `simulate`, a headless demo;
#   4. the README's quick-start command as written (it ends in the dashboard demo): Ctrl-C
#      (SIGINT to its process group, as a terminal sends it) and then SIGTERM must end it
#      with exit code 0 or 130 and no traceback or abort, on this slow emulated CPU.
# Each step prints its wall time and result; a summary closes the log.
#
# Needs root, about 2 GB under data/arm64 (gitignored) and an hour or two on two shared cores:
# measured at nice 19 beside other work, debootstrap 78 min, the README's install block 3 min
# (python3 -m venv included; 35 min once on a machine at load 25), detect on 70 photos 4 min,
# the two-player demo 11 min.
# Too slow for CI: run it before a release and paste its summary into the release note.
#
# Two things the emulation needs that a Pi does not:
# - qemu-user shows the guest the host's /proc/cpuinfo (x86 lines); ONNX Runtime's CPU probe
#   aborts on import with it, so a Cortex-A72's cpuinfo is bind-mounted over it.
# - a host behind a TLS-inspecting proxy: its extra CA certificates (/usr/local/share/
#   ca-certificates) and PIP_CERT are carried into the root.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
WORK=${ARM64_WORK:-$REPO/data/arm64}
ROOT=$WORK/root
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
PHOTOS=${PHOTOS:-$REPO/../shared/data/real-cards-mit}
[ -d "$PHOTOS" ] || PHOTOS=/work/shared/data/real-cards-mit
HOST_PYTHON=${HOST_PYTHON:-python3}
DEMO_SECONDS=${DEMO_SECONDS:-90}  # dashboard demo time before Ctrl-C, after it has started
STEPS=${ARM64_STEPS:-"root aptnumpy install numpy doctor detect simulate demo quickstart"}
VARIANT=${DEBOOTSTRAP_VARIANT:-minbase}  # apt, python3 and what they need; the README adds the rest
export QEMU_CPU=${QEMU_CPU:-cortex-a72}
LOG=$WORK/check.log
SUMMARY=()

[ "$(id -u)" = 0 ] || { echo "run as root (debootstrap, chroot, mounts)" >&2; exit 2; }
mkdir -p "$WORK"
exec > >(tee -a "$LOG") 2>&1
echo "=== arm64 check $(date -u +%FT%TZ) of $(git -C "$REPO" rev-parse --short HEAD)$(git -C "$REPO" diff --quiet || echo '+changes')"

want() { [[ " $STEPS " == *" $1 "* ]]; }
note() { SUMMARY+=("$1"); echo ">>> $1"; }
timed() {  # timed NAME CMD...: run, note the wall time and exit code
  local name=$1; shift
  local t0=$SECONDS rc=0
  "$@" || rc=$?
  note "$name: exit $rc in $((SECONDS - t0)) s"
  return 0
}

# ------------------------------------------------------------------------- host tools
need=()
command -v debootstrap >/dev/null || need+=(debootstrap)
[ -e /usr/bin/qemu-aarch64-static ] || need+=(qemu-user-static)
command -v update-binfmts >/dev/null || need+=(binfmt-support)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}"
fi
[ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || update-binfmts --enable qemu-aarch64

# ------------------------------------------------------------------------- the root
if want root && [ ! -e "$ROOT/.arm64-check-root" ]; then
  t0=$SECONDS
  # A root a killed run left half built: debootstrap does not resume one. Removed only when
  # nothing is mounted in it (a killed run's lazy unmounts may still be pending).
  if [ -d "$ROOT" ]; then
    if findmnt -rn -o TARGET | grep -q "^$ROOT/"; then
      echo "$ROOT is half built and has mounts in it: unmount them first" >&2; exit 1
    fi
    rm -rf "$ROOT"
  fi
  nice -n 10 debootstrap --arch=arm64 --variant="$VARIANT" --include=sudo,ca-certificates,python3 bookworm "$ROOT" "$MIRROR"
  touch "$ROOT/.arm64-check-root"
  note "debootstrap bookworm arm64: $((SECONDS - t0)) s"
fi
[ -e "$ROOT/.arm64-check-root" ] || { echo "no root at $ROOT: run the 'root' step" >&2; exit 1; }

cat > "$WORK/cpuinfo" <<'EOF'
EOF
for i in 0 1 2 3; do
  printf 'processor\t: %s\nBogoMIPS\t: 108.00\nFeatures\t: fp asimd evtstrm crc32 cpuid\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0xd08\nCPU revision\t: 3\n\n' "$i" >> "$WORK/cpuinfo"
done

mounted=()
cleanup() {
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -R -l "${mounted[i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
mnt() { mount "$@"; mounted+=("${@: -1}"); }
mnt -t proc proc "$ROOT/proc"
mnt --bind "$WORK/cpuinfo" "$ROOT/proc/cpuinfo"
mnt -t sysfs sysfs "$ROOT/sys"
mnt --rbind /dev "$ROOT/dev"
mount --make-rslave "$ROOT/dev"  # nothing mounted or unmounted in the root reaches the host's /dev
mkdir -p "$ROOT/home/pi/photos"
mnt --bind -o ro "$PHOTOS" "$ROOT/home/pi/photos"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
# Appended to the root's bundle once (update-ca-certificates takes a quarter of an hour under
# emulation): pip reads the bundle through PIP_CERT.
for crt in /usr/local/share/ca-certificates/*.crt; do
  [ -e "$crt" ] || continue
  grep -qF "$(sed -n 2p "$crt")" "$ROOT/etc/ssl/certs/ca-certificates.crt" || cat "$crt" >> "$ROOT/etc/ssl/certs/ca-certificates.crt"
done

as_root() { chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
  DEBIAN_FRONTEND=noninteractive QEMU_CPU="$QEMU_CPU" /bin/bash -c "$1"; }
# pip under emulation reads slowly (its TLS is emulated too): its default 15 s read timeout
# and 5 retries lost the big aarch64 wheels (OpenCV, ONNX Runtime) on a loaded machine.
PIP_ENV=(PIP_DEFAULT_TIMEOUT="${PIP_DEFAULT_TIMEOUT:-300}" PIP_RETRIES="${PIP_RETRIES:-10}"
  PIP_DISABLE_PIP_VERSION_CHECK=1)
[ -n "${PIP_CERT:-}" ] && PIP_ENV+=(PIP_CERT=/etc/ssl/certs/ca-certificates.crt)
as_pi() {  # as_pi 'commands' in the checkout, a login-like environment, no terminal
  chroot "$ROOT" /usr/bin/env -i HOME=/root USER=root LOGNAME=root SHELL=/bin/bash LANG=C.UTF-8 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin QEMU_CPU="$QEMU_CPU" "${PIP_ENV[@]}" \
    /bin/bash -c "cd /home/pi/uno-table && $1"
}
in_venv() { as_pi ". .venv/bin/activate && $1"; }
as_root "uname -m; . /etc/os-release; echo \$PRETTY_NAME; python3 --version; nproc; grep -m1 'CPU part' /proc/cpuinfo"

# The project as a Pi owner's checkout has it: this working tree's files (tracked and new).
rm -rf "$ROOT/home/pi/uno-table"
mkdir -p "$ROOT/home/pi/uno-table"
git -C "$REPO" ls-files -z -co --exclude-standard | tar -C "$REPO" --null -T - -cf - | tar -C "$ROOT/home/pi/uno-table" -xf -

# ------------------------------------------------------------------------- 1. apt's numpy
if want aptnumpy; then
  timed "apt: python3-numpy python3-bottleneck (as on Pi OS, before the README)" \
    as_root "apt-get update -q >/dev/null && apt-get install -y -q python3-numpy python3-bottleneck >/dev/null"
  as_root "dpkg-query -W python3-numpy python3-bottleneck"
fi

# ------------------------------------------------------------------------- 2. README's Pi steps
if want install; then
  block=$(awk '/<!-- arm64-check: install -->/{f=1; next} f && /^```bash/{g=1; next} g && /^```/{exit} g' "$REPO/README.md")
  [ -n "$block" ] || { echo "README.md has no block after <!-- arm64-check: install -->" >&2; exit 1; }
  printf 'The README block, run as written:\n%s\n' "$block"
  # Its lines up to `pip install`; the uno-table commands after it are the next steps.
  install=$(printf '%s\n' "$block" | sed -n '1,/pip install/p')
  as_pi "rm -rf .venv"
  timed "README install block" as_pi "set -e; $install"
fi

if want numpy; then
  timed "apt-built extension in the venv (import bottleneck)" in_venv \
    "python -c 'import numpy, bottleneck, cv2, onnxruntime; print(\"numpy\", numpy.__version__, numpy.__file__); print(\"bottleneck\", bottleneck.__version__, \"cv2\", cv2.__version__, \"onnxruntime\", onnxruntime.__version__)'"
  # The control: a numpy 2 in front of apt's breaks the extension (a numpy 2 in a folder put
  # first on the path, not a second venv: ensurepip alone takes half an hour under emulation).
  t0=$SECONDS
  as_pi "rm -rf /tmp/numpy2 && .venv/bin/pip install -q --target /tmp/numpy2 'numpy>=2'" >/dev/null || true
  echo "control numpy 2 installed in $((SECONDS - t0)) s"
  if as_pi "PYTHONPATH=/tmp/numpy2 python3 -c 'import numpy, bottleneck; print(numpy.__version__)' 2>&1 | tail -2; exit \${PIPESTATUS[0]}"; then
    note "control (numpy 2 in the venv): bottleneck imports: the control shows nothing"
  else
    note "control (numpy 2 in the venv): bottleneck fails to import, as expected"
  fi
fi

# ------------------------------------------------------------------------- 3. the commands
if want doctor; then
  timed "uno-table doctor" in_venv "uno-table doctor"
fi

if want detect; then
  t0=$SECONDS
  (cd "$REPO" && "$HOST_PYTHON" -m app detect --json "$PHOTOS"/*.png 2>/dev/null) > "$WORK/detect-host.jsonl" || true
  note "detect on this machine: $((SECONDS - t0)) s"
  t0=$SECONDS
  in_venv "uno-table detect --json ../photos/*.png 2>/dev/null" > "$WORK/detect-arm64.jsonl" || true
  "$HOST_PYTHON" - "$WORK/detect-host.jsonl" "$WORK/detect-arm64.jsonl" <<'EOF' || true
import json, sys
def load(p):
    out = {}
    for line in open(p):
        if line.strip():
            r = json.loads(line)
            out[r["image"].rsplit("/", 1)[-1]] = r["cards"]
    return out
host, arm = load(sys.argv[1]), load(sys.argv[2])
same = [k for k in host if k in arm and [c["card"] for c in host[k]] == [c["card"] for c in arm[k]]]
box = max((abs(a - b) for k in same for h, g in zip(host[k], arm[k]) for a, b in zip(h["box"], g["box"])), default=0)
conf = max((abs(h["confidence"] - g["confidence"]) for k in same for h, g in zip(host[k], arm[k])), default=0)
print(f"detect: {len(host)} photos on this machine, {len(arm)} on arm64; card names equal on {len(same)}; "
      f"largest box difference {box:.2f} px, confidence {conf:.4f}")
for k in sorted(set(host) | set(arm)):
    if k not in same:
        print("  differs:", k, [c["card"] for c in host.get(k, [])], [c["card"] for c in arm.get(k, [])])
EOF
  note "uno-table detect --json on arm64 ($(grep -c . "$WORK/detect-arm64.jsonl") photos): $((SECONDS - t0)) s"
fi

if want simulate; then
  timed "uno-table simulate --games 20" in_venv "uno-table simulate --players 4 --games 20 --seed 1 --json"
fi

# A whole 4-player round renders ~1,000 frames: an hour and more under emulation. Two players
# and the stand-in detector keep it to minutes; the shipped model runs in `detect` and in the
# quick start's demo. DEMO_ARGS to change it.
DEMO_ARGS=${DEMO_ARGS:-"--headless --rounds 1 --players 2 --seed 1 --detector sim-truth --json"}
if want demo; then
  timed "uno-table demo $DEMO_ARGS" in_venv "uno-table demo $DEMO_ARGS"
fi

# ------------------------------------------------------------------------- 4. quick start + stop
descendants() {  # every process below PID
  local kid
  for kid in $(ps -o pid= --ppid "$1"); do echo "$kid"; descendants "$kid"; done
}
stop_demo() {  # stop_demo SIGNAL [CMD]: the quick start's command as written (or CMD); once the
  # dashboard is up and frames flow, SIGNAL to the uno-table process (as Ctrl-C or systemd would)
  local sig=$1 out=$WORK/quickstart-$1.log quick pid t0 page target rc=0 bad
  quick=${2:-$(awk '/<!-- arm64-check: quickstart -->/{f=1; next} f && /^```bash/{g=1; next} g && /^```/{exit} g' "$REPO/README.md")}
  echo "quick start, as written: $quick"
  as_pi "$quick" > "$out" 2>&1 &
  pid=$! t0=$SECONDS
  until grep -q "Dashboard:" "$out" || ! kill -0 "$pid" 2>/dev/null || (( SECONDS - t0 > 1800 )); do sleep 5; done
  note "quick start: dashboard up after $((SECONDS - t0)) s (install included)"
  sleep "$DEMO_SECONDS"
  page=$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:8000/ || true)
  target=$(for p in $(descendants "$pid"); do
             tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null | grep -q "uno-table demo" && echo "$p"
           done | tail -1)
  [ -n "$target" ] && kill -s "$sig" "$target"
  wait "$pid" || rc=$?
  bad=$(grep -c -E "Traceback|terminate called|Aborted|core dumped" "$out" || true)
  note "quick start + SIG$sig to pid ${target:-none} after ${DEMO_SECONDS} s more: dashboard page HTTP $page, exit $rc, $bad traceback/abort lines"
  tail -4 "$out"
}
if want quickstart; then
  if ss -ltn 2>/dev/null | grep -q ':8000 '; then
    note "quick start skipped: port 8000 is taken on this machine (the root shares its network)"
  else
    stop_demo INT
    # The same demo from the venv the quick start made (its venv and install again would add
    # another half hour under emulation and prove nothing more).
    stop_demo TERM ". .venv/bin/activate && uno-table demo"
  fi
fi

echo "=== summary"
printf '%s\n' "${SUMMARY[@]}"
