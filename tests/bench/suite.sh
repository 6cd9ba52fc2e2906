#!/bin/sh
# suite.sh - the guest side of `make bench` (scripts/bench.sh), run by
# /init's suite "bench".  The kernel command line says what to run:
#   dwb.configs=CFG,...  the configurations, in this order
#   dwb.rounds=N         rounds (default 5); a round runs each configuration
#                        once, so a drift of the host spreads over all of them
#   dwb.macro=M          the macro workloads in the first M rounds only
#                        (default: all), as they take most of the time
#   dwb.scale=X          dwbench --scale (default 1)
#   dwb.slab=FILES       then the memory figures over FILES files (default 0:
#                        none), under the classic policy where denywrite runs
#                        (the packaged one with dwb.libdir)
#   dwb.libdir=DIR       (make bench-distro) dwbench works in DIR/dwbench,
#                        maps DIR/dwbench/lib (--lib) and dlopens a copy of
#                        the plugin there: DIR is the library directory of
#                        the packaged policy, as ld.so maps a library
#   dwb.settle=1         (make bench-distro) before each dwbench run, wait
#                        until the CPU was idle for a second (settle below)
#   dwb.only=OP,...      dwbench --only: these operations only
#                        (scripts/bench-trace.sh)
# Configurations: stock and nolsm (denywrite not in lsm=: nothing to set),
# off and audit (that mode, rule "exec /"), exec and all (enforce, "exec /"
# or "all /"), rN-match (enforce: N-1 rules on empty directories, then
# "all /") and rN-none (enforce: N rules on empty directories); pkg and
# pkgoff (make bench-distro: the packaged policy, "exec /" and
# "lib DIR", in enforce and in mode off).  CFG-bg: CFG with 200 background
# processes (dwb.holders) started after its policy is set, half running
# dwb-true-dyn, half dwb-true, each mapping executable the files the
# mappings and dlopen map (dwb-true --hold), so that every file the
# operations run or map is held by others, killed after its dwbench run;
# before it, the policy check also checks that every one of them maps the
# work files (the dynamic half libc too) and, in enforce, that a write
# open of each of those files and of both programs is refused.
# Output, for each round and configuration: group bench-policy-CFG-rROUND,
# one check that its policy is in place (or that denywrite is not active),
# then that dwbench run, group bench-CFG-rROUND; last, group bench-mem.
B=/tests/bench
sfs=/sys/kernel/security/denywrite
dummies=/tmp/dwb-rules
policy=/tmp/dwb-policy

param() {	# param NAME DEFAULT: dwb.NAME= from the kernel command line
	v=$(sed -n "s/.* dwb\.$1=\([^ ]*\).*/\1/p" /proc/cmdline)
	echo "${v:-$2}"
}

denywrite_active() {
	tr , '\n' </sys/kernel/security/lsm | grep -qx denywrite
}

dummy_rules() {	# dummy_rules N: N rules on empty directories, none covering anything
	awk -v n="$1" -v d=$dummies \
		'BEGIN { for (i = 0; i < n; i++) printf "all %s/d%04d\n", d, i }'
}

policy_of() {	# policy_of CFG: the rules of a configuration
	case $1 in
	off | audit | exec) echo "exec /" ;;
	pkg | pkgoff) printf 'exec /\nlib %s\n' "$libdir" ;;
	all) echo "all /" ;;
	r*-match)
		n=${1#r}
		dummy_rules $((${n%-match} - 1))
		echo "all /"
		;;
	r*-none)
		n=${1#r}
		dummy_rules "${n%-none}"
		;;
	*) return 1 ;;
	esac
}

mode_of() {
	case $1 in
	off | audit) echo "$1" ;;
	pkgoff) echo off ;;
	*) echo enforce ;;
	esac
}

# apply CFG: set its policy (the rules in one write(2), as securityfs
# wants) and read it back.  Prints why it failed.
apply() {
	set -- "${1%-bg}"
	case $1 in
	stock | nolsm)
		if denywrite_active; then echo "denywrite is active"; return 1; fi
		return 0
		;;
	esac
	denywrite_active || { echo "denywrite is not active"; return 1; }
	policy_of "$1" >$policy || { echo "unknown configuration"; return 1; }
	mode=$(mode_of "$1")
	echo "$mode" >$sfs/mode || { echo "cannot set mode $mode"; return 1; }
	dd if=$policy of=$sfs/rules bs=65536 2>/dev/null ||
		{ echo "cannot write $(wc -l <$policy) rules"; return 1; }
	[ "$(cat $sfs/mode)" = "$mode" ] || { echo "mode reads $(cat $sfs/mode)"; return 1; }
	cmp -s $sfs/rules $policy || { echo "rules read back differ"; return 1; }
}

# The background processes of CFG-bg: start them (after the policy), wait
# until each has mapped its files; stop them.
held=/tmp/dwb-held
start_holders() {
	: >$held
	holder_pids=
	i=0
	while [ $i -lt "$holders" ]; do
		prog=dwb-true-dyn
		[ $((i % 2)) = 1 ] && prog=dwb-true
		# shellcheck disable=SC2086
		$B/$prog --hold $hold_files >>$held 2>/dev/console </dev/null &
		holder_pids="$holder_pids $!"
		i=$((i + 1))
	done
	n=0
	while [ "$(wc -l <$held)" -lt "$holders" ] && [ $n -lt 600 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	[ "$(wc -l <$held)" -eq "$holders" ] ||
		{ echo "only $(wc -l <$held) of $holders background processes hold their files"; return 1; }
	check_holders "$1"
}

# check_holders CFG: what the background processes hold, seen from
# outside: every one maps the work files, the dynamic half libc; in
# enforce, a write open of each file they run or map is refused (they
# hold it: ETXTBSY).
libc=/usr/lib/x86_64-linux-gnu/libc.so.6
check_holders() {
	n=$(grep -l " $work/lib\$" /proc/[0-9]*/maps 2>/dev/null | wc -l)
	[ "$n" -eq "$holders" ] ||
		{ echo "$n processes map $work/lib, not $holders"; return 1; }
	n=$(grep -l " $libc\$" /proc/[0-9]*/maps 2>/dev/null | wc -l)
	[ "$n" -ge $((holders / 2)) ] ||
		{ echo "$n processes map $libc, not $((holders / 2))"; return 1; }
	{ denywrite_active && [ "$(mode_of "${1%-bg}")" = enforce ]; } || return 0
	for f in $hold_files $libc $B/dwb-true $B/dwb-true-dyn; do
		if (: >>"$f") 2>/dev/null; then
			echo "$f is not held: a write open succeeds"
			return 1
		fi
	done
}

stop_holders() {
	# shellcheck disable=SC2086
	kill $holder_pids 2>/dev/null
	wait
}

# settle: with dwb.settle=1, wait until the CPU was idle for a second
# (under 2% busy in /proc/stat), at most 60 s, and print how long it
# took (STAT settle WHAT SECONDS).  Under -icount a busy kernel thread is
# counted in the time of whatever runs beside it: a Debian-configured
# kernel has one busy for about a second after /init starts, and the 200
# background processes leave work behind them when they exit.
settle() {	# settle WHAT
	[ "$settle" = 1 ] || return 0
	t=0
	while [ $t -lt 60 ]; do
		a=$(head -n 1 /proc/stat)
		sleep 1
		b=$(head -n 1 /proc/stat)
		t=$((t + 1))
		if echo "$a $b" | awk '{ for (k = 2; k <= 11; k++) {
				d = $(k + 11) - $k; tot += d
				if (k != 5 && k != 6) busy += d }
			exit !(tot > 0 && busy * 100 < 2 * tot) }'; then
			echo "STAT settle $1 $t"
			return 0
		fi
	done
	echo "the CPU was not idle for a second in 60 s"
	return 1
}

configs=$(param configs "" | tr , ' ')
rounds=$(param rounds 5)
macro=$(param macro "$rounds")
scale=$(param scale 1)
slab=$(param slab 0)
libdir=$(param libdir "")
holders=$(param holders 200)
settle=$(param settle 0)
only=$(param only "")
dwbench_args=
slab_config="exec"
if [ -n "$libdir" ]; then
	work=$libdir/dwbench
	deep=$work/d01/d02/d03/d04/d05/d06/d07/d08/d09/d10/d11/d12
	mkdir -p "$work"
	cp /usr/lib/dwbench/libdwbplugin.so "$work/"
	dwbench_args="--dir $work --lib --plugin $work/libdwbplugin.so"
	hold_files="$work/lib $deep/lib $work/libdwbplugin.so"
	slab_config=pkg
	# The work files, made before any background process maps them.
	# shellcheck disable=SC2086
	$B/dwbench $dwbench_args --only none >/dev/null
fi
# The active LSMs, for the report (make bench-distro compares the kernels).
echo "STAT bench-lsm list $(cat /sys/kernel/security/lsm)"
mkdir -p $dummies
# shellcheck disable=SC2046
mkdir -p $(dummy_rules 1000 | cut -d' ' -f2)
r=1
while [ $r -le "$rounds" ]; do
	for c in $configs; do
		echo "PLAN bench-policy-$c-r$r 1"
		ok=yes
		why=$(apply "$c") || ok=no
		case $ok$c in
		yes*-bg)	# in this shell: it keeps the processes' ids
			if [ -z "$libdir" ]; then
				ok=no why="background processes need dwb.libdir"
			elif ! start_holders "$c" >/tmp/dwb-why; then
				ok=no why=$(cat /tmp/dwb-why)
				stop_holders
			fi ;;
		esac
		# the background processes' start and the previous run's
		# exits done
		if [ $ok = yes ] && ! why=$(settle "$c-r$r"); then
			ok=no
			case $c in *-bg) stop_holders ;; esac
		fi
		case $why in STAT*) echo "$why" ;; esac
		if [ $ok = yes ]; then
			echo "PASS policy_in_place_for_${c}_round_$r"
			micro=
			[ $r -gt "$macro" ] && micro=--micro-only
			[ -n "$only" ] && micro="--only $only"
			# shellcheck disable=SC2086
			$B/dwbench --group "bench-$c-r$r" --rounds 1 --scale "$scale" \
				$micro $dwbench_args
			case $c in *-bg) stop_holders ;; esac
		else
			echo "FAIL policy_in_place_for_${c}_round_$r: $why"
		fi
	done
	r=$((r + 1))
done
if [ "$slab" -gt 0 ]; then
	denywrite_active && apply $slab_config >/dev/null
	settle mem >/dev/null
	# shellcheck disable=SC2086
	$B/dwbench --group bench-mem --only none --slab "$slab" $dwbench_args
fi
