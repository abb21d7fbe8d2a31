/* A plugin whose entry point segfaults: scanning must survive it. */
#include <mattebox/plugin.h>
#include <signal.h>

__attribute__((visibility("default"))) const mbx_plugin_descriptor *mbx_plugin_get(uint32_t index, const mbx_host_api *host) {
    (void)index; (void)host;
    raise(SIGSEGV);
    return 0;
}
