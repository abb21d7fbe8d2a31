/* A plugin whose entry point never returns: scanning must time out and go on. */
#include <mattebox/plugin.h>
#include <unistd.h>

__attribute__((visibility("default"))) const mbx_plugin_descriptor *mbx_plugin_get(uint32_t index, const mbx_host_api *host) {
    (void)index; (void)host;
    for (;;) pause();
    return 0;
}
