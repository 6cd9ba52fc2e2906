# early.sh: run by the image's test hook (dwdebian-early.service) before
# denywrite.service loads the policy.  For the suites debian_broken and
# distro_broken, it puts a policy file with an error on line 3 into
# /etc/denywrite/rules.d (the root file system of a test boot is a
# throw-away snapshot).
case $(cat /proc/cmdline) in
*dwdebian=debian_broken*|*dwdebian=distro_broken*)
	printf '%s\n' '# A broken policy file, from the test hook (early.sh).' \
		'exec /usr/bin' 'exec-everything /usr/sbin' \
		>/etc/denywrite/rules.d/95-broken.rules
	;;
esac
