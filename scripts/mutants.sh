#!/bin/sh
# FRAGMENTS="..." mutants.sh [NAME...]   (make test-mutants; README.md, "Tests")
#
# The suite's own mutation check: build a few deliberately broken kernels
# and tools and show that the tests fail on each.  Every mutant is made on
# a copy, never in the repository's files: the kernel ones in
# build/mutants/kernel/linux (the prepared tree build/linux, hard-linked,
# with security/denywrite/ copied afresh for each mutant and the mutated
# file written anew) and one obj dir for all of them, so that only the
# first is a full build, built by scripts/build-kernel.sh (which takes
# the machine's kernel build lock);
# the CLI and report ones in a copy of the tracked files.  A mutation
# whose text is not found fails the script: a mutant identical to the
# code would survive for nothing.
#
# A kernel mutant is booted with the suite named in its row (the one whose
# checks should catch it) and the report run on it alone (--partial); the
# CLI mutant runs the host tests (make check-host), the report mutant the
# report's tests.  A mutant is killed when that fails with a FAIL line of
# a check; the first such line is printed.  A kernel mutant that does not
# build is an error of this script, never a kill.
#
# Prints one line a mutant and writes build/mutants/results.txt; exits 1
# if a mutant survived or could not be tried.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
out=build/mutants
ktree=$out/kernel/linux kobj=$out/kernel/obj
make="make --no-print-directory -s"
# The kernel mutants are make test's kernel (the Makefile's FRAGMENTS),
# mutated.
fragments=${FRAGMENTS:?"mutants: run by make test-mutants (FRAGMENTS unset)"}

# NAME KIND SUITE FILE: the mutants.  KIND kernel (FILE under
# security/denywrite/, SUITE the suite booted), cli (FILE under
# policy-tool/) or report (FILE scripts/report.py); the mutation itself
# is mutation_NAME below.
mutants='
hook_unregistered   kernel lsm         hook_write.c
writer_test_skipped kernel lsm         hook_write.c
mapping_hold_skipped kernel lsm        mapping.c
denying_hold_counted kernel lsm        decide.c
denial_uncounted    kernel lsm         hook_write.c
overlay_hold_on_lower_inode kernel lsm protect.c
cli_check_deleted   cli    host        policy.c
report_check_removed report report     report.py
'

# mutate FILE OLD NEW: replace the one occurrence of OLD in FILE by NEW
# (Python string literals), writing a new file (FILE may be a hard link).
mutate() {
	python3 - "$@" <<'EOF'
import ast, os, sys
path, old, new = sys.argv[1], ast.literal_eval(sys.argv[2]), ast.literal_eval(sys.argv[3])
text = open(path).read()
if text.count(old) != 1:
    sys.exit(f"mutants: {path}: the text to mutate occurs {text.count(old)} times")
os.unlink(path)
open(path, "w").write(text.replace(old, new))
EOF
}

mutation_hook_unregistered() {	# file_permission is no hook of denywrite
	mutate "$1" '"\tLSM_HOOK_INIT(file_permission, hook_file_permission),\n"' '""' &&
		mutate "$1" '"static int hook_file_permission("' \
			'"static int __maybe_unused hook_file_permission("'
}

mutation_writer_test_skipped() {	# no open for writing is ever refused
	mutate "$1" '"static int hook_file_open(struct file *file)\n{\n"' \
		'"static int hook_file_open(struct file *file)\n{\n\treturn 0;\n"'
}

mutation_mapping_hold_skipped() {	# no mapping protects its file
	mutate "$1" '"int denywrite_protect_mapping(struct file *file)\n{\n"' \
		'"int denywrite_protect_mapping(struct file *file)\n{\n\treturn 0;\n"'
}

# Stock parity (issue 28): enforce mode's hold is exec's own denial of
# write access; made a hold the hooks count, a refused writer raises
# i_writecount before the hook refuses it, and an exec racing it fails.
mutation_denying_hold_counted() {
	mutate "$1" '"\t\treturn DENYWRITE_HOLD_DENY;\n"' '"\t\treturn 0;\n"'
}

# The refusals the VFS makes for a denying hold go uncounted and unlogged.
mutation_denial_uncounted() {
	mutate "$1" '"static void hook_write_access_denied(const struct path *path, bool truncate)\n{\n"' \
		'"static void hook_write_access_denied(const struct path *path, bool truncate)\n{\n\treturn;\n"'
}

# An overlayfs file's denying hold is taken on its real (lower) inode
# instead of the overlay inode exec denies: a write through the running
# program's own overlay path is let in (copied up), and a write to the
# lower file shared with another container's overlay is refused.
mutation_overlay_hold_on_lower_inode() {
	mutate "$1" '"\tinodes[0] = file_inode(file);\n\tinodes[1] = NULL;\n"' \
		'"\tinodes[0] = d_real_inode(file->f_path.dentry);\n\tinodes[1] = NULL;\n"'
}

mutation_cli_check_deleted() {	# rules with relative paths accepted
	mutate "$1" '"\tif (p[0] != \x27/\x27) {\n"' '"\tif (0 && p[0] != \x27/\x27) {\n"'
}

mutation_report_check_removed() {	# a MATRIX outcome unlike its CELL passes
	mutate "$1" '"        elif g.matrix[key] != expected:\n"' \
		'"        elif False:\n"'
}

first_fail() {	# the first FAIL line of FILE, one of a check if any
	{ grep '^FAIL ' "$1" | grep -v ': exited with status ' ; grep '^FAIL ' "$1"; } |
		head -n 1 | cut -c1-240
}

# copy_tracked DIR: the repository's tracked files (as they are in the
# work tree) into DIR.
copy_tracked() {
	rm -rf "$1"
	mkdir -p "$1"
	git ls-files -z | xargs -0 cp --parents -t "$1"
}

run_kernel_mutant() {	# NAME SUITE FILE
	name=$1 suite=$2 file=$3
	# security/denywrite/ copied afresh (new mtimes), so that the mutant
	# before this one is rebuilt away in the shared obj dir.
	rm -rf "$ktree/security/denywrite"
	cp -r build/linux/security/denywrite "$ktree/security/denywrite"
	"mutation_$name" "$ktree/security/denywrite/$file" || {
		echo "the mutation did not apply" >"$d/why"
		return 1
	}
	diff -u "build/linux/security/denywrite/$file" "$ktree/security/denywrite/$file" >"$d/mutation.diff"
	if ! scripts/build-kernel.sh "$ktree" "$kobj" $fragments >"$d/build.log" 2>&1; then
		echo "did not build (see $d/build.log)" >"$d/why"
		return 1
	fi
	runid="mutant-$name-$$"
	mkdir -p "$d/test"
	echo "$runid" >"$d/test/run.id"
	# As scripts/test.sh boots it: default_lsm without lsm=.
	lsm=lsm=capability,denywrite
	[ "$suite" = default_lsm ] && lsm=
	scripts/boot.sh "$kobj/arch/x86/boot/bzImage" build/initramfs.cpio.gz "$d/test/$suite" \
		"$lsm ignore_loglevel log_buf_len=16M dwsuite=$suite dwrun=$runid" \
		build/dwfs.img >"$d/boot.log" 2>&1
	scripts/report.py --manifest tests/manifest --partial "$suite" "$d/test" >"$d/report.txt" 2>&1
}

run_copy_mutant() {	# NAME KIND FILE
	name=$1 kind=$2 file=$3
	d=$out/$name
	copy_tracked "$d/src"
	case $kind in
	cli) f=$d/src/policy-tool/$file ;;
	report) f=$d/src/scripts/$file ;;
	esac
	orig=${f#"$d/src/"}
	"mutation_$name" "$f" || {
		echo "the mutation did not apply" >"$d/why"
		return 1
	}
	diff -u "$orig" "$f" >"$d/mutation.diff"
	case $kind in
	cli) $make -C "$d/src/policy-tool" check >"$d/report.txt" 2>&1 ;;
	report) python3 "$d/src/tests/report/run.py" >"$d/report.txt" 2>&1 ;;
	esac
}

mkdir -p "$out"
only=" $* "
results=$out/results.txt
: >"$results"
status=0
printf '%s\n' "$mutants" | grep -v '^[[:space:]]*$' |
	awk -v only="$only" 'only == "  " || index(only, " " $1 " ")' >"$out/rows"
# The kernel mutants start from the prepared tree and the guest of make test.
if awk '$2 == "kernel"' "$out/rows" | grep -q .; then
	$make kernel initramfs || { echo "mutants: make kernel initramfs failed" >&2; exit 1; }
	# One tree and obj dir for every kernel mutant: the tree hard-linked
	# from build/linux anew each run, the obj dir kept, so that only the
	# first mutant is a full build and each one after it a rebuild of
	# security/denywrite/.
	rm -rf "$ktree"
	mkdir -p "$out/kernel"
	cp -al build/linux "$ktree"
fi
while read -r name kind suite file; do
	t0=$(date +%s)
	d=$out/$name
	rm -rf "$d"
	mkdir -p "$d"
	case $kind in
	kernel) run_kernel_mutant "$name" "$suite" "$file" ;;
	*) run_copy_mutant "$name" "$kind" "$file" ;;
	esac
	rc=$?
	secs=$(($(date +%s) - t0))
	if [ -f "$d/why" ]; then
		verdict="NOT TRIED: $(cat "$d/why")"
		status=1
	elif [ $rc != 0 ] && [ -n "$(first_fail "$d/report.txt")" ]; then
		verdict="killed by $suite: $(first_fail "$d/report.txt")"
	elif [ $rc != 0 ]; then
		verdict="failed without a FAIL line (exit $rc, see $d/report.txt): not counted as killed"
		status=1
	else
		verdict="SURVIVED: $suite passed (see $d/report.txt)"
		status=1
	fi
	echo "$name ($kind, ${secs} s): $verdict" | tee -a "$results"
done <"$out/rows"
exit $status
