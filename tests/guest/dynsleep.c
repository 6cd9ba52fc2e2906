/* dynsleep - dynamically linked against libdwtest.so; sleeps until killed. */
#include <stdio.h>

#include "ready.h"

int dwtest_lib_value(void);

int main(void)
{
	if (dwtest_lib_value() != 42) {
		fprintf(stderr, "dynsleep: unexpected value from libdwtest.so\n");
		return 1;
	}
	dw_signal_ready();
	dw_sleep_forever();
}
