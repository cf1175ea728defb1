/* kernel.ustack/upstream.exp, after systemtap.context/usymbols: the
 * program and its library each install a signal handler of their own; the
 * script names each handler address passed to rt_sigaction. */
#include <signal.h>

void handlers_lib_install(void);

static void exe_handler(int sig) { (void)sig; }

int main(void)
{
	signal(SIGUSR2, exe_handler);
	handlers_lib_install();
	return 0;
}
