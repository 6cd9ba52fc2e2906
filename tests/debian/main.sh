# main.sh: run by the image's test hook (dwdebian.service) once the boot is
# under way.  Runs the suite that dwdebian=SUITE on the kernel command line
# names, with the run id of dwrun=ID, on the results port (the second
# serial port, /dev/ttyS1), then reboots, which ends the VM (QEMU runs with
# -no-reboot).  dwdebian.keep=1 leaves the system running instead.
t=/run/dwdebian
suite=$(sed -n 's/.*dwdebian=\([a-z0-9_]*\).*/\1/p' /proc/cmdline)
runid=$(sed -n 's/.*dwrun=\([A-Za-z0-9._-]*\).*/\1/p' /proc/cmdline)
# Audit records reach the kernel log through printk_ratelimit(), which
# the kernel command line turned off (scripts/test-debian.sh, logargs).
sh $t/suites.sh run "$suite" "${runid:--}" >/dev/ttyS1 2>/dev/console
grep -q 'dwdebian.keep=1' /proc/cmdline && exit 0
systemctl reboot --force
