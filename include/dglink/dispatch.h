/* What the dispatch layer (libdglink_pi.so) found when it looked for adapters: a
 * small C API for tools such as `dglink ls`, beside the PI entry points. */
#ifndef DGLINK_DISPATCH_H
#define DGLINK_DISPATCH_H

#include <dglink/pi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One adapter library the dispatch layer considered. Every string is owned by the
 * dispatch layer and stays valid until the process exits; none is NULL. */
typedef struct dglink_adapter_info {
  const char *Name;          /* "opencl": the <name> of libdglink_adapter_<name>.so */
  const char *Path;          /* the file that was considered */
  const char *PluginVersion; /* what its piPluginInit reported, "" if it never did */
  const char *SkipReason;    /* why it is not used, "" when Loaded */
  pi_bool Loaded;            /* PI_TRUE when its platforms are served */
  pi_uint32 NumPlatforms;    /* platforms it contributes to piPlatformsGet */
} dglink_adapter_info;

/* Adapters considered (loaded and skipped), in discovery order. Discovery runs on
 * the first call to this or to any other function of libdglink_pi.so that needs it. */
PI_API_EXPORT pi_uint32 dglinkDispatchAdapterCount(void);

/* Describes adapter Index (< dglinkDispatchAdapterCount()). PI_ERROR_INVALID_VALUE,
 * with a message for piPluginGetLastError, when Out is NULL or Index is too large. */
PI_API_EXPORT pi_result dglinkDispatchAdapterInfo(pi_uint32 Index, dglink_adapter_info *Out);

/* The folders searched, in order (the dispatch layer's own folder first, then
 * DGLINK_ADAPTER_PATH), without repeats; NULL when Index is too large. */
PI_API_EXPORT pi_uint32 dglinkDispatchDirectoryCount(void);
PI_API_EXPORT const char *dglinkDispatchDirectory(pi_uint32 Index);

#ifdef __cplusplus
}
#endif

#endif /* DGLINK_DISPATCH_H */
