/* dlsleep [PLUGIN] - dlopen()s the plugin (default
 * /usr/lib/dwtest/libdwplugin.so), calls dwplugin_value(), sleeps until killed. */
#include <dlfcn.h>
#include <stdio.h>

#include "ready.h"

#ifndef DEFAULT_PLUGIN
#define DEFAULT_PLUGIN "/usr/lib/dwtest/libdwplugin.so"
#endif

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : DEFAULT_PLUGIN;
	int (*fn)(void);
	void *h;

	h = dlopen(path, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlsleep: dlopen %s: %s\n", path, dlerror());
		return 1;
	}
	*(void **)&fn = dlsym(h, "dwplugin_value");
	if (!fn || fn() != 7) {
		fprintf(stderr, "dlsleep: dwplugin_value missing or wrong\n");
		return 1;
	}
	dw_signal_ready();
	dw_sleep_forever();
}
