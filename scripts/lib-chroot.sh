# shellcheck shell=bash
# Debian chroots for tests that need a clean system (sourced by
# scripts/test-packages.sh and scripts/test-gst-1.26.sh; bash, run as root).
#
#   . scripts/lib-chroot.sh
#   chroot_base bookworm /var/tmp/gst-ssim2-chroot/bookworm   # debootstrap once, then reused
#   chroot_overlay BASE ROOT      # a throw-away root on top of the cached one
#   chroot_mount_system ROOT      # /proc, /sys, /dev, /dev/pts, resolv.conf
#   chroot_bind SRC DST [ro]      # a bind mount, undone on exit
#   chroot_unmount_last           # undoes the last mount now
#   chroot_run [--user NAME] ROOT COMMAND...  # COMMAND in ROOT with a clean
#                                 # environment (plus CHROOT_ENV), as root or NAME
#
# Every mount is recorded and undone, in reverse order, when the script exits
# (normally, on an error under set -e, or by SIGINT/SIGTERM), after the
# processes still running inside the chroot are stopped. A base is cached
# with a marker file; delete its folder to make it again.

CHROOT_MOUNTS=()
CHROOT_ROOTS=()  # processes whose root is one of these are stopped on exit
CHROOT_REMOVE=()  # throw-away folders, removed once unmounted
CHROOT_NAME=${CHROOT_NAME:-chroot}
CHROOT_ENV=()  # VAR=VALUE settings chroot_run adds to the clean environment

chroot_die() { echo "$CHROOT_NAME: $*" >&2; exit 2; }

# $DEBIAN_MIRROR, else the Debian archive apt uses on this machine (deb822
# "URIs:" or one-line "deb" entries), else deb.debian.org.
chroot_mirror() {
  local url=${DEBIAN_MIRROR:-}
  [ -n "$url" ] || url=$(grep -hsE '^[[:space:]]*(URIs:|deb[[:space:]])' /etc/apt/sources.list /etc/apt/sources.list.d/* |
        grep -oE 'https?://[^[:space:]]+/debian/?([[:space:]]|$)' | head -n1 | tr -d '[:space:]')
  echo "${url:-http://deb.debian.org/debian}"
}

# shellcheck disable=SC2317  # called from the trap
chroot_cleanup() {
  local root p i
  for root in "${CHROOT_ROOTS[@]}"; do
    for p in /proc/[0-9]*; do
      [ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && kill -TERM "${p#/proc/}" 2>/dev/null
    done
  done
  for ((i = ${#CHROOT_MOUNTS[@]} - 1; i >= 0; i--)); do
    umount "${CHROOT_MOUNTS[i]}" 2>/dev/null || umount -l "${CHROOT_MOUNTS[i]}" ||
      echo "$CHROOT_NAME: could not unmount ${CHROOT_MOUNTS[i]}" >&2
  done
  CHROOT_MOUNTS=()
  if [ ${#CHROOT_REMOVE[@]} -gt 0 ] && ! findmnt -rno TARGET | grep -qF "${CHROOT_REMOVE[0]}"; then
    rm -rf --one-file-system "${CHROOT_REMOVE[@]}"
  fi
  CHROOT_REMOVE=()
  return 0
}

# Sourcing sets the EXIT trap: a caller with cleanup of its own calls
# chroot_cleanup from its trap.
trap 'chroot_cleanup' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

chroot_mount() {  # mount ARGS... TARGET: the last argument is the mount point
  mount "$@"
  CHROOT_MOUNTS+=("${!#}")
}

chroot_bind() {  # SRC DST [ro]
  mkdir -p "$2"
  chroot_mount --bind "$1" "$2"
  if [ "${3:-}" = ro ]; then mount -o remount,bind,ro "$2"; fi
}

chroot_unmount_last() {
  umount "${CHROOT_MOUNTS[-1]}"
  unset 'CHROOT_MOUNTS[-1]'
}

# Refuses a folder with mounts inside (left by a run killed with SIGKILL):
# rm -rf there would reach the host's files.
chroot_assert_unmounted() {
  if findmnt -rno TARGET | grep -q "^$1/"; then
    chroot_die "mounts left inside $1 (see findmnt): unmount them first"
  fi
}

# SUITE DIR [PACKAGES...]: a minbase debootstrap of SUITE from this machine's
# mirror into DIR, with apt pointed at the same archive (the host's sources
# file for the host's own release), and PACKAGES installed; made once. When
# only the package list changes, the packages are installed into the base
# as it is (what it holds besides, such as build caches, stays).
chroot_base() {
  local suite=$1 dir=$2 mirror packages
  shift 2
  packages="$*"
  mirror=$(chroot_mirror)
  chroot_assert_unmounted "$dir"
  if [ -f "$dir/.chroot-base" ] && [ "$(cat "$dir/.chroot-base")" = "$suite: $packages" ]; then
    return 0
  fi
  if [ ! -f "$dir/.chroot-base" ] || [ "$(sed 's/:.*//' "$dir/.chroot-base")" != "$suite" ]; then
    command -v debootstrap >/dev/null || chroot_die "debootstrap not found: apt-get install debootstrap"
    rm -rf --one-file-system "$dir"
    mkdir -p "$dir"
    echo "== $CHROOT_NAME: debootstrap $suite from $mirror into $dir"
    debootstrap --variant=minbase --components=main "$suite" "$dir" "$mirror" >"$dir.debootstrap.log" 2>&1 ||
      { tail -n 20 "$dir.debootstrap.log" >&2; chroot_die "debootstrap failed (log: $dir.debootstrap.log)"; }
    if [ -f /etc/apt/sources.list.d/debian.sources ] &&
       grep -q "^Suites:.*\b$suite\b" /etc/apt/sources.list.d/debian.sources; then
      cp /etc/apt/sources.list.d/debian.sources "$dir/etc/apt/sources.list.d/debian.sources"
      : >"$dir/etc/apt/sources.list"
    fi
  fi
  if [ -n "$packages" ]; then
    chroot_mount_system "$dir"
    # shellcheck disable=SC2086
    chroot_run "$dir" sh -c "apt-get update -qq && apt-get install -y -qq --no-install-recommends $packages >/dev/null" ||
      chroot_die "apt-get install $packages in $dir failed"
    chroot_cleanup
  fi
  chroot_run "$dir" apt-get clean
  echo "$suite: $packages" >"$dir/.chroot-base"
}

# BASE ROOT: ROOT shows BASE, and what is written there goes to ROOT.upper
# (overlayfs; a copy where overlayfs is not available). Removed on exit.
chroot_overlay() {
  local base=$1 root=$2
  chroot_assert_unmounted "$root"
  rm -rf --one-file-system "$root" "$root.upper" "$root.work"
  mkdir -p "$root" "$root.upper" "$root.work"
  CHROOT_REMOVE+=("$root" "$root.upper" "$root.work")
  if ! chroot_mount -t overlay overlay \
         -o "lowerdir=$base,upperdir=$root.upper,workdir=$root.work" "$root" 2>/dev/null; then
    echo "$CHROOT_NAME: overlayfs not available: copying $base" >&2
    cp -a "$base/." "$root/"
  fi
}

chroot_mount_system() {  # ROOT
  local root=$1
  CHROOT_ROOTS+=("$(realpath "$root")")
  mkdir -p "$root/proc" "$root/sys" "$root/dev"
  chroot_mount -t proc proc "$root/proc"
  chroot_mount -t sysfs sysfs "$root/sys"
  chroot_bind /dev "$root/dev"
  chroot_bind /dev/pts "$root/dev/pts"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
}

# [--user NAME] ROOT COMMAND...: as root (or as the chroot's user NAME), with
# a clean environment and CHROOT_ENV. In the background, so that the traps
# run at once when a signal comes (bash runs them only after a foreground
# command ends).
chroot_run() {
  local user=(--userspec=0:0) home=/root
  if [ "$1" = --user ]; then user=(--userspec="$2:$2"); home=/home/$2; shift 2; fi
  local root=$1
  shift
  chroot "${user[@]}" "$root" /usr/bin/env -i HOME="$home" LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
    DEBCONF_NOWARNINGS=yes PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    "${CHROOT_ENV[@]}" "$@" &
  wait $!
}
