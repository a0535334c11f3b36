/*
 * The library's version at run time, from the generated <rowkey/version.h>,
 * so a program can tell the library it runs with from the headers it was
 * compiled with.
 */
#include <rowkey/version.h>

const char *rk_version(void)
{
	return RK_VERSION;
}
