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
# Configurations: stock and nolsm (denywrite not in lsm=: nothing to set),
# off and audit (that mode, rule "exec /"), exec and all (enforce, "exec /"
# or "all /"), rN-match (enforce: N-1 rules on empty directories, then
# "all /") and rN-none (enforce: N rules on empty directories).
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
	*) echo enforce ;;
	esac
}

# apply CFG: set its policy (the rules in one write(2), as securityfs
# wants) and read it back.  Prints why it failed.
apply() {
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

configs=$(param configs "" | tr , ' ')
rounds=$(param rounds 5)
macro=$(param macro "$rounds")
scale=$(param scale 1)
slab=$(param slab 0)
mkdir -p $dummies
# shellcheck disable=SC2046
mkdir -p $(dummy_rules 1000 | cut -d' ' -f2)
r=1
while [ $r -le "$rounds" ]; do
	for c in $configs; do
		echo "PLAN bench-policy-$c-r$r 1"
		if why=$(apply "$c"); then
			echo "PASS policy_in_place_for_${c}_round_$r"
			micro=
			[ $r -gt "$macro" ] && micro=--micro-only
			$B/dwbench --group "bench-$c-r$r" --rounds 1 --scale "$scale" $micro
		else
			echo "FAIL policy_in_place_for_${c}_round_$r: $why"
		fi
	done
	r=$((r + 1))
done
if [ "$slab" -gt 0 ]; then
	denywrite_active && apply exec >/dev/null
	$B/dwbench --group bench-mem --only none --slab "$slab"
fi
