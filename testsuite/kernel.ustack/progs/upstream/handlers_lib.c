/* The library half of handlers.c. */
#include <signal.h>

static void lib_handler(int sig) { (void)sig; }

void handlers_lib_install(void)
{
	signal(SIGUSR2, lib_handler);
}
