/* libdwplugin.so - a tiny shared library that dlsleep dlopen()s. */
int dwplugin_value(void);

int dwplugin_value(void)
{
	return 7;
}
