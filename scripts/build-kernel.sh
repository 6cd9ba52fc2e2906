#!/bin/sh
# build-kernel.sh SRC_DIR OBJ_DIR FRAGMENT...
#
# Configure OBJ_DIR from tinyconfig plus the fragments (again only when a
# fragment changed), check that every option the fragments ask for survived
# Kconfig, and build bzImage incrementally.
set -eu
# One kernel build at a time on this machine, whichever checkout runs it: a
# build loads every core.
exec 9>/tmp/denywrite-kbuild.lock
if ! flock -n 9; then
	echo "kernel: waiting for another kernel build to finish"
	flock 9
fi
src=$(realpath "$1") obj=$(realpath -m "$2")
shift 2
mkdir -p "$obj"
jobs=$(nproc)
sum=$(cat "$@" | sha256sum | cut -d' ' -f1)

if [ ! -f "$obj/.config" ] || [ "$(cat "$obj/.dw-fragments" 2>/dev/null)" != "$sum" ]; then
	echo "kernel: configuring $obj"
	make -s -C "$src" O="$obj" tinyconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$@" >/dev/null
	make -s -C "$src" O="$obj" olddefconfig >/dev/null
	bad=0
	for frag in "$@"; do
		while IFS= read -r line; do
			case $line in
			CONFIG_*=*)
				grep -qxF "$line" "$obj/.config" || {
					echo "kernel: $frag asks for $line, .config has:" \
						"$(grep "^${line%%=*}=\|# ${line%%=*} is" "$obj/.config" || echo unset)" >&2
					bad=1
				} ;;
			"# CONFIG_"*" is not set")
				opt=${line#\# }; opt=${opt%% *}
				if grep -q "^$opt=" "$obj/.config"; then
					echo "kernel: $frag turns $opt off, .config has it on" >&2
					bad=1
				fi ;;
			esac
		done <"$frag"
	done
	if [ $bad = 1 ]; then
		rm -f "$obj/.dw-fragments"
		echo "kernel: configuration check failed (unmet dependencies?)" >&2
		exit 1
	fi
	echo "$sum" >"$obj/.dw-fragments"
fi
echo "kernel: building $obj with linux-source-6.12 $(dpkg-query -W -f '${Version}' linux-source-6.12)"
log="$obj/.dw-build.log"
make -s -C "$src" O="$obj" -j"$jobs" bzImage 2>&1 | tee "$log"
[ -f "$obj/arch/x86/boot/bzImage" ] && ! grep -q 'Error [0-9]' "$log" || {
	echo "kernel: build failed" >&2
	exit 1
}
if grep -q 'security/denywrite/.*warning:' "$log"; then
	echo "kernel: security/denywrite/ has compiler warnings" >&2
	exit 1
fi
