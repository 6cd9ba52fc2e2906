/* libdwbplugin.so - the library dwb-dlopen loads and unloads. */
int dwbplugin_value(void);

int dwbplugin_value(void)
{
	return 9;
}
