/*
 * simgpu: a simulated PluggableDevice for TensorFlow, for tfdoctor's tests.
 *
 * It stands in for tensorflow-metal (libmetal_plugin.dylib) on machines that
 * have no Mac and no GPU.  Like Metal, it registers a device of type "GPU"
 * through TensorFlow's StreamExecutor C API, with its own platform name
 * ("SIMGPU", where Metal's is "METAL").  Its "device memory" is host memory
 * from posix_memalign, its streams are synchronous, and TensorFlow puts its
 * own BFC allocator on top of our allocate/deallocate callbacks
 * (use_bfc_allocator = 1), so memory growth and tf.config.experimental.
 * get_memory_info behave as they do on a real pluggable device.
 *
 * Kernels (kernel C API): float32 MatMul and Conv2D.  Every other op has no
 * kernel on this device and falls back to the CPU under soft placement, as
 * ops without a Metal kernel do.  A pass-through graph optimizer (graph C
 * API) is registered as Metal registers one; see TF_InitGraph.
 *
 * The environment variable SIMGPU_MODE, read once when TensorFlow loads the
 * plugin (i.e. at `import tensorflow`), picks a behaviour:
 *   ok          correct results
 *   wrong       results perturbed by ~SIMGPU_NOISE relative noise (1e-2)
 *   slow        correct, but every kernel sleeps: SIMGPU_SLOW_LATENCY_US
 *               (2000) plus FLOPs / SIMGPU_SLOW_GFLOPS (1.0) GFLOP/s
 *   nokernels   device listed, no kernel registered: everything runs on CPU
 *   fail-init   SE_InitPlugin reports an error through TF_Status (TF 2.19
 *               then aborts the process inside `import tensorflow`)
 *   nodevice    the plugin loads but get_device_count reports an error: TF
 *               logs it and lists no GPU
 *   fail-create the GPU is listed, but creating it fails: the first op raises
 *   leak        correct results, but every kernel launch loses
 *               SIMGPU_LEAK_KB (256) KiB of host memory (touched, never freed)
 * In wrong mode SIMGPU_WRONG_OPS (e.g. "Conv2D") limits the noise to those op
 * types; unset, every kernel is wrong.
 *
 * Streams are asynchronous, as on a real GPU: kernels are queued on one
 * worker thread and return at once; copies, memsets and every host wait
 * (device-to-host copy, BlockHostUntilDone, events, host callbacks) wait for
 * the queue first.  SIMGPU_SYNC=1 runs kernels inline instead.  The device's
 * true busy time (time the worker spent running kernels), the number of
 * kernel launches and the leaked bytes are exported as simgpu_busy_ns(),
 * simgpu_kernel_launches() and simgpu_leaked_bytes() (read them with ctypes
 * from the process that loaded the plugin).
 * Unknown values make SE_InitPlugin fail, like fail-init, with a message
 * naming the valid modes.
 * Other knobs: SIMGPU_MEMORY_MB (2048) device memory size,
 *              SIMGPU_DEVICE_COUNT (1) number of devices (at most 16),
 *              SIMGPU_QUIET (unset) no banner on stderr.
 *
 * Built by tests/simgpu/build.py; see tests/simgpu/README.md.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tensorflow/c/experimental/grappler/grappler.h"
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"
#include "tensorflow/c/kernels.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"

#ifdef SIMGPU_MISSING_SYMBOL
/* Build variant "missing-symbol": reference a TensorFlow C API function that
 * this TensorFlow does not export, so the dynamic loader refuses the library
 * the way it refuses a tensorflow-metal built for another TensorFlow
 * ("Symbol not found: _TF_...").  TensorFlow dlopens plugins with RTLD_NOW, so
 * the failure happens at `import tensorflow`, not at first use. */
extern void TF_SimgpuSymbolThisTensorFlowDoesNotHave(void);
void simgpu_use_missing_symbol(void) {
  TF_SimgpuSymbolThisTensorFlowDoesNotHave();
}
#endif

/* Hot loops get AVX-512/AVX2 clones picked at load time (glibc ifunc), so the
 * simple loops below run at a few tens of GFLOP/s instead of SSE2 speed.  No
 * FMA contraction in ISO C mode: every clone gives the same bits. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    defined(__linux__)
#define SIMGPU_HOT __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SIMGPU_HOT
#endif

#define SIMGPU_PLATFORM_NAME "SIMGPU"
#define SIMGPU_DEVICE_TYPE "GPU"
#define SIMGPU_VERSION "1"
#define SIMGPU_MAX_DEVICES 16

/* ------------------------------------------------------------------------ */
/* Mode and knobs                                                           */
/* ------------------------------------------------------------------------ */

typedef enum {
  MODE_OK,
  MODE_WRONG,
  MODE_SLOW,
  MODE_NOKERNELS,
  MODE_FAIL_INIT,
  MODE_NODEVICE,
  MODE_FAIL_CREATE,
  MODE_LEAK,
  MODE_UNKNOWN
} simgpu_mode_t;

static simgpu_mode_t g_mode = MODE_OK;
static const char* g_mode_name = "ok";
static double g_noise = 1e-2;
static double g_slow_latency_us = 2000.0;
static double g_slow_gflops = 1.0;
static int64_t g_memory_total = 2048LL << 20;
static int g_device_count = 1;
static int g_quiet = 0;
static int g_config_read = 0;
static int g_sync = 0;
static int64_t g_leak_bytes = 256LL << 10;
static char g_wrong_ops[256] = "";

static double env_double(const char* name, double dflt) {
  const char* v = getenv(name);
  if (v == NULL || *v == '\0') return dflt;
  char* end = NULL;
  double d = strtod(v, &end);
  if (end == v) return dflt;
  return d;
}

static void read_config(void) {
  if (g_config_read) return;
  g_config_read = 1;
  const char* m = getenv("SIMGPU_MODE");
  if (m == NULL || *m == '\0') m = "ok";
  g_mode_name = m;
  if (strcmp(m, "ok") == 0) {
    g_mode = MODE_OK;
  } else if (strcmp(m, "wrong") == 0) {
    g_mode = MODE_WRONG;
  } else if (strcmp(m, "slow") == 0) {
    g_mode = MODE_SLOW;
  } else if (strcmp(m, "nokernels") == 0) {
    g_mode = MODE_NOKERNELS;
  } else if (strcmp(m, "fail-init") == 0) {
    g_mode = MODE_FAIL_INIT;
  } else if (strcmp(m, "nodevice") == 0) {
    g_mode = MODE_NODEVICE;
  } else if (strcmp(m, "fail-create") == 0) {
    g_mode = MODE_FAIL_CREATE;
  } else if (strcmp(m, "leak") == 0) {
    g_mode = MODE_LEAK;
  } else {
    g_mode = MODE_UNKNOWN;
  }
  g_noise = env_double("SIMGPU_NOISE", 1e-2);
  g_slow_latency_us = env_double("SIMGPU_SLOW_LATENCY_US", 2000.0);
  g_slow_gflops = env_double("SIMGPU_SLOW_GFLOPS", 1.0);
  if (g_slow_gflops <= 0) g_slow_gflops = 1.0;
  double mb = env_double("SIMGPU_MEMORY_MB", 2048.0);
  if (mb < 1) mb = 1;
  g_memory_total = (int64_t)(mb * 1024.0 * 1024.0);
  g_device_count = (int)env_double("SIMGPU_DEVICE_COUNT", 1.0);
  if (g_device_count < 0) g_device_count = 0;
  if (g_device_count > SIMGPU_MAX_DEVICES) g_device_count = SIMGPU_MAX_DEVICES;
  const char* q = getenv("SIMGPU_QUIET");
  g_quiet = (q != NULL && *q != '\0' && strcmp(q, "0") != 0);
  const char* sy = getenv("SIMGPU_SYNC");
  g_sync = (sy != NULL && *sy != '\0' && strcmp(sy, "0") != 0);
  double kb = env_double("SIMGPU_LEAK_KB", 256.0);
  if (kb < 0) kb = 0;
  g_leak_bytes = (int64_t)(kb * 1024.0);
  const char* w = getenv("SIMGPU_WRONG_OPS");
  if (w != NULL && strlen(w) < sizeof g_wrong_ops - 2) {
    /* stored as ",Op1,Op2," so that a lookup is one strstr */
    snprintf(g_wrong_ops, sizeof g_wrong_ops, ",%s,", w);
  }
}

/* ------------------------------------------------------------------------ */
/* The device queue: one worker thread runs kernels in submission order.    */
/* ------------------------------------------------------------------------ */

typedef void (*task_fn)(void* arg);

typedef struct task {
  task_fn run;
  void* arg;
  struct task* next;
} task_t;

static pthread_mutex_t g_q_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_q_cv = PTHREAD_COND_INITIALIZER;   /* work queued */
static pthread_cond_t g_q_done = PTHREAD_COND_INITIALIZER; /* work finished */
static task_t* g_q_head = NULL;
static task_t* g_q_tail = NULL;
static uint64_t g_q_submitted = 0;
static uint64_t g_q_completed = 0;
static int g_q_started = 0;
static uint64_t g_busy_ns = 0;
static int64_t g_launches = 0;
static int64_t g_leaked = 0;

static uint64_t now_ns(void);

static void* queue_worker(void* unused) {
  (void)unused;
  pthread_mutex_lock(&g_q_mu);
  for (;;) {
    while (g_q_head == NULL) pthread_cond_wait(&g_q_cv, &g_q_mu);
    task_t* t = g_q_head;
    g_q_head = t->next;
    if (g_q_head == NULL) g_q_tail = NULL;
    pthread_mutex_unlock(&g_q_mu);
    const uint64_t t0 = now_ns();
    t->run(t->arg);
    const uint64_t spent = now_ns() - t0;
    free(t);
    pthread_mutex_lock(&g_q_mu);
    g_busy_ns += spent;
    g_q_completed++;
    pthread_cond_broadcast(&g_q_done);
  }
  return NULL;
}

/* Queue `run(arg)` on the device (or run it now with SIMGPU_SYNC=1). */
static void enqueue(task_fn run, void* arg) {
  __atomic_add_fetch(&g_launches, 1, __ATOMIC_RELAXED);
  task_t* t = (task_t*)malloc(sizeof(task_t));
  if (g_sync || t == NULL) {
    free(t);
    const uint64_t t0 = now_ns();
    run(arg);
    const uint64_t spent = now_ns() - t0;
    pthread_mutex_lock(&g_q_mu);
    g_busy_ns += spent;
    pthread_mutex_unlock(&g_q_mu);
    return;
  }
  t->run = run;
  t->arg = arg;
  t->next = NULL;
  pthread_mutex_lock(&g_q_mu);
  if (!g_q_started) {
    pthread_t th;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&th, &attr, queue_worker, NULL) == 0) {
      g_q_started = 1;
    }
    pthread_attr_destroy(&attr);
    if (!g_q_started) { /* no thread: run inline */
      pthread_mutex_unlock(&g_q_mu);
      free(t);
      run(arg);
      return;
    }
  }
  if (g_q_tail) g_q_tail->next = t; else g_q_head = t;
  g_q_tail = t;
  g_q_submitted++;
  pthread_cond_signal(&g_q_cv);
  pthread_mutex_unlock(&g_q_mu);
}

/* Block the host until everything queued so far has run. */
static void drain(void) {
  pthread_mutex_lock(&g_q_mu);
  const uint64_t target = g_q_submitted;
  while (g_q_completed < target) pthread_cond_wait(&g_q_done, &g_q_mu);
  pthread_mutex_unlock(&g_q_mu);
}

static uint64_t queue_ticket(void) {
  pthread_mutex_lock(&g_q_mu);
  const uint64_t t = g_q_submitted;
  pthread_mutex_unlock(&g_q_mu);
  return t;
}

static int ticket_done(uint64_t ticket) {
  pthread_mutex_lock(&g_q_mu);
  const int done = g_q_completed >= ticket;
  pthread_mutex_unlock(&g_q_mu);
  return done;
}

static void wait_ticket(uint64_t ticket) {
  pthread_mutex_lock(&g_q_mu);
  while (g_q_completed < ticket) pthread_cond_wait(&g_q_done, &g_q_mu);
  pthread_mutex_unlock(&g_q_mu);
}

/* Exported for tests (ctypes): the device's true busy time, launches, leak. */
uint64_t simgpu_busy_ns(void) {
  pthread_mutex_lock(&g_q_mu);
  const uint64_t v = g_busy_ns;
  pthread_mutex_unlock(&g_q_mu);
  return v;
}
int64_t simgpu_kernel_launches(void) {
  return __atomic_load_n(&g_launches, __ATOMIC_RELAXED);
}
int64_t simgpu_leaked_bytes(void) {
  return __atomic_load_n(&g_leaked, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------------------ */
/* Opaque handles.  Events remember the queue position they were recorded  */
/* at; they are complete once the worker has run everything before it.     */
/* ------------------------------------------------------------------------ */

struct SP_Stream_st {
  int unused;
};
struct SP_Event_st {
  uint64_t ticket;
};
struct SP_Timer_st {
  uint64_t start_ns;
  uint64_t stop_ns;
};

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void set_ok(TF_Status* status) {
  if (status != NULL) TF_SetStatus(status, TF_OK, "");
}

/* ------------------------------------------------------------------------ */
/* Memory: host memory with a simulated capacity                            */
/* ------------------------------------------------------------------------ */

/* Per-device accounting; every device has g_memory_total bytes. */
static int64_t g_bytes_in_use_a[SIMGPU_MAX_DEVICES];
static int64_t g_peak_bytes_in_use_a[SIMGPU_MAX_DEVICES];
static int64_t g_num_allocs_a[SIMGPU_MAX_DEVICES];
static int64_t g_largest_alloc_a[SIMGPU_MAX_DEVICES];

static int dev_index(const SP_Device* device) {
  int i = device != NULL ? device->ordinal : 0;
  return (i >= 0 && i < SIMGPU_MAX_DEVICES) ? i : 0;
}

static void stat_max(int64_t* slot, int64_t value) {
  int64_t cur = __atomic_load_n(slot, __ATOMIC_RELAXED);
  while (value > cur &&
         !__atomic_compare_exchange_n(slot, &cur, value, 0, __ATOMIC_RELAXED,
                                      __ATOMIC_RELAXED)) {
  }
}

static void se_allocate(const SP_Device* device, uint64_t size,
                        int64_t memory_space, SP_DeviceMemoryBase* mem) {
  (void)memory_space;
  const int d = dev_index(device);
  mem->struct_size = SP_DEVICE_MEMORY_BASE_STRUCT_SIZE;
  mem->opaque = NULL;
  mem->size = 0;
  if (size == 0) return;
  int64_t after = __atomic_add_fetch(&g_bytes_in_use_a[d], (int64_t)size,
                                     __ATOMIC_RELAXED);
  if (after > g_memory_total) {
    /* Out of simulated device memory: report failure as a device would. */
    __atomic_sub_fetch(&g_bytes_in_use_a[d], (int64_t)size, __ATOMIC_RELAXED);
    return;
  }
  void* p = NULL;
  if (posix_memalign(&p, 256, (size_t)size) != 0) {
    __atomic_sub_fetch(&g_bytes_in_use_a[d], (int64_t)size, __ATOMIC_RELAXED);
    return;
  }
  __atomic_add_fetch(&g_num_allocs_a[d], 1, __ATOMIC_RELAXED);
  stat_max(&g_peak_bytes_in_use_a[d], after);
  stat_max(&g_largest_alloc_a[d], (int64_t)size);
  mem->opaque = p;
  mem->size = size;
}

static void se_deallocate(const SP_Device* device, SP_DeviceMemoryBase* mem) {
  if (mem == NULL || mem->opaque == NULL) return;
  free(mem->opaque);
  __atomic_sub_fetch(&g_bytes_in_use_a[dev_index(device)], (int64_t)mem->size,
                     __ATOMIC_RELAXED);
  mem->opaque = NULL;
  mem->size = 0;
}

static void* se_host_memory_allocate(const SP_Device* device, uint64_t size) {
  (void)device;
  void* p = NULL;
  if (posix_memalign(&p, 64, size ? (size_t)size : 1) != 0) return NULL;
  return p;
}

static void se_host_memory_deallocate(const SP_Device* device, void* mem) {
  (void)device;
  free(mem);
}

static TF_Bool se_get_allocator_stats(const SP_Device* device,
                                      SP_AllocatorStats* stats) {
  const int d = dev_index(device);
  stats->struct_size = SP_ALLOCATORSTATS_STRUCT_SIZE;
  stats->num_allocs = __atomic_load_n(&g_num_allocs_a[d], __ATOMIC_RELAXED);
  stats->bytes_in_use = __atomic_load_n(&g_bytes_in_use_a[d], __ATOMIC_RELAXED);
  stats->peak_bytes_in_use =
      __atomic_load_n(&g_peak_bytes_in_use_a[d], __ATOMIC_RELAXED);
  stats->largest_alloc_size =
      __atomic_load_n(&g_largest_alloc_a[d], __ATOMIC_RELAXED);
  stats->has_bytes_limit = 1;
  stats->bytes_limit = g_memory_total;
  stats->bytes_reserved = 0;
  stats->peak_bytes_reserved = 0;
  stats->has_bytes_reservable_limit = 0;
  stats->bytes_reservable_limit = 0;
  stats->largest_free_block_bytes = g_memory_total - stats->bytes_in_use;
  return 1;
}

static TF_Bool se_device_memory_usage(const SP_Device* device, int64_t* free_b,
                                      int64_t* total_b) {
  int64_t used =
      __atomic_load_n(&g_bytes_in_use_a[dev_index(device)], __ATOMIC_RELAXED);
  *total_b = g_memory_total;
  *free_b = g_memory_total - used;
  if (*free_b < 0) *free_b = 0;
  return 1;
}

/* ------------------------------------------------------------------------ */
/* Streams, events, timers                                                  */
/* ------------------------------------------------------------------------ */

static void se_create_stream(const SP_Device* device, SP_Stream* stream,
                             TF_Status* status) {
  (void)device;
  *stream = (SP_Stream)calloc(1, sizeof(struct SP_Stream_st));
  if (*stream == NULL) {
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "simgpu: out of host memory");
    return;
  }
  set_ok(status);
}

static void se_destroy_stream(const SP_Device* device, SP_Stream stream) {
  (void)device;
  free(stream);
}

static void se_create_stream_dependency(const SP_Device* device,
                                        SP_Stream dependent, SP_Stream other,
                                        TF_Status* status) {
  (void)device;
  (void)dependent;
  (void)other;
  set_ok(status);
}

static void se_get_stream_status(const SP_Device* device, SP_Stream stream,
                                 TF_Status* status) {
  (void)device;
  (void)stream;
  set_ok(status);
}

static void se_create_event(const SP_Device* device, SP_Event* event,
                            TF_Status* status) {
  (void)device;
  *event = (SP_Event)calloc(1, sizeof(struct SP_Event_st));
  if (*event == NULL) {
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "simgpu: out of host memory");
    return;
  }
  set_ok(status);
}

static void se_destroy_event(const SP_Device* device, SP_Event event) {
  (void)device;
  free(event);
}

static SE_EventStatus se_get_event_status(const SP_Device* device,
                                          SP_Event event) {
  (void)device;
  return ticket_done(event->ticket) ? SE_EVENT_COMPLETE : SE_EVENT_PENDING;
}

static void se_record_event(const SP_Device* device, SP_Stream stream,
                            SP_Event event, TF_Status* status) {
  (void)device;
  (void)stream;
  event->ticket = queue_ticket();
  set_ok(status);
}

static void se_wait_for_event(const SP_Device* const device, SP_Stream stream,
                              SP_Event event, TF_Status* const status) {
  (void)device;
  (void)stream;
  (void)event;
  set_ok(status);
}

static void se_create_timer(const SP_Device* device, SP_Timer* timer,
                            TF_Status* status) {
  (void)device;
  *timer = (SP_Timer)calloc(1, sizeof(struct SP_Timer_st));
  if (*timer == NULL) {
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "simgpu: out of host memory");
    return;
  }
  set_ok(status);
}

static void se_destroy_timer(const SP_Device* device, SP_Timer timer) {
  (void)device;
  free(timer);
}

static void se_start_timer(const SP_Device* device, SP_Stream stream,
                           SP_Timer timer, TF_Status* status) {
  (void)device;
  (void)stream;
  timer->start_ns = now_ns();
  set_ok(status);
}

static void se_stop_timer(const SP_Device* device, SP_Stream stream,
                          SP_Timer timer, TF_Status* status) {
  (void)device;
  (void)stream;
  timer->stop_ns = now_ns();
  set_ok(status);
}

static uint64_t timer_nanoseconds(SP_Timer timer) {
  return timer->stop_ns >= timer->start_ns ? timer->stop_ns - timer->start_ns
                                           : 0;
}

/* ------------------------------------------------------------------------ */
/* Copies and fills: wait for the queue, then plain memcpy/memset (so they  */
/* see every queued kernel's result and no queued kernel sees them early)  */
/* ------------------------------------------------------------------------ */

static void se_memcpy_dtoh(const SP_Device* device, SP_Stream stream,
                           void* host_dst,
                           const SP_DeviceMemoryBase* device_src,
                           uint64_t size, TF_Status* status) {
  drain();
  (void)device;
  (void)stream;
  if (size) memcpy(host_dst, device_src->opaque, (size_t)size);
  set_ok(status);
}

static void se_memcpy_htod(const SP_Device* device, SP_Stream stream,
                           SP_DeviceMemoryBase* device_dst,
                           const void* host_src, uint64_t size,
                           TF_Status* status) {
  drain();
  (void)device;
  (void)stream;
  if (size) memcpy(device_dst->opaque, host_src, (size_t)size);
  set_ok(status);
}

static void se_memcpy_dtod(const SP_Device* device, SP_Stream stream,
                           SP_DeviceMemoryBase* device_dst,
                           const SP_DeviceMemoryBase* device_src,
                           uint64_t size, TF_Status* status) {
  drain();
  (void)device;
  (void)stream;
  if (size) memmove(device_dst->opaque, device_src->opaque, (size_t)size);
  set_ok(status);
}

static void se_sync_memcpy_dtoh(const SP_Device* device, void* host_dst,
                                const SP_DeviceMemoryBase* device_src,
                                uint64_t size, TF_Status* status) {
  se_memcpy_dtoh(device, NULL, host_dst, device_src, size, status);
}

static void se_sync_memcpy_htod(const SP_Device* device,
                                SP_DeviceMemoryBase* device_dst,
                                const void* host_src, uint64_t size,
                                TF_Status* status) {
  se_memcpy_htod(device, NULL, device_dst, host_src, size, status);
}

static void se_sync_memcpy_dtod(const SP_Device* device,
                                SP_DeviceMemoryBase* device_dst,
                                const SP_DeviceMemoryBase* device_src,
                                uint64_t size, TF_Status* status) {
  se_memcpy_dtod(device, NULL, device_dst, device_src, size, status);
}

static void se_block_host_for_event(const SP_Device* device, SP_Event event,
                                    TF_Status* status) {
  (void)device;
  wait_ticket(event->ticket);
  set_ok(status);
}

static void se_block_host_until_done(const SP_Device* device,
                                     SP_Stream stream, TF_Status* status) {
  (void)device;
  (void)stream;
  drain();
  set_ok(status);
}

static void se_synchronize_all_activity(const SP_Device* device,
                                        TF_Status* status) {
  (void)device;
  drain();
  set_ok(status);
}

static void se_mem_zero(const SP_Device* device, SP_Stream stream,
                        SP_DeviceMemoryBase* location, uint64_t size,
                        TF_Status* status) {
  drain();
  (void)device;
  (void)stream;
  if (size) memset(location->opaque, 0, (size_t)size);
  set_ok(status);
}

static void se_memset(const SP_Device* device, SP_Stream stream,
                      SP_DeviceMemoryBase* location, uint8_t pattern,
                      uint64_t size, TF_Status* status) {
  drain();
  (void)device;
  (void)stream;
  if (size) memset(location->opaque, pattern, (size_t)size);
  set_ok(status);
}

static void se_memset32(const SP_Device* device, SP_Stream stream,
                        SP_DeviceMemoryBase* location, uint32_t pattern,
                        uint64_t size, TF_Status* status) {
  drain();
  (void)device;
  (void)stream;
  uint32_t* p = (uint32_t*)location->opaque;
  for (uint64_t i = 0; i < size / 4; ++i) p[i] = pattern;
  set_ok(status);
}

static TF_Bool se_host_callback(const SP_Device* device, SP_Stream stream,
                                SE_StatusCallbackFn callback_fn,
                                void* callback_arg) {
  (void)device;
  (void)stream;
  /* Everything enqueued before this callback must have run: wait for the
   * queue, then call it on the caller's thread. */
  drain();
  TF_Status* s = TF_NewStatus();
  callback_fn(callback_arg, s);
  int ok = TF_GetCode(s) == TF_OK;
  if (!ok && !g_quiet) {
    fprintf(stderr, "simgpu: host callback failed: %s\n", TF_Message(s));
  }
  TF_DeleteStatus(s);
  return ok ? 1 : 0;
}

/* ------------------------------------------------------------------------ */
/* Platform and device                                                      */
/* ------------------------------------------------------------------------ */

static void pf_get_device_count(const SP_Platform* platform, int* device_count,
                                TF_Status* status) {
  (void)platform;
  if (g_mode == MODE_NODEVICE) {
    /* The plugin loads, but finds no usable device (TF logs this message as
     * an error each time it counts devices, and lists no GPU). */
    *device_count = 0;
    TF_SetStatus(status, TF_UNAVAILABLE,
                 "simgpu: no simulated GPU available (SIMGPU_MODE=nodevice)");
    return;
  }
  *device_count = g_device_count;
  set_ok(status);
}

static int g_banner_printed = 0;

static void pf_create_device(const SP_Platform* platform,
                             SE_CreateDeviceParams* params,
                             TF_Status* status) {
  (void)platform;
  SP_Device* d = params->device;
  d->struct_size = SP_DEVICE_STRUCT_SIZE;
  d->ext = NULL;
  d->ordinal = params->ordinal;
  d->device_handle = NULL;
  d->hardware_name = "SIMGPU";
  d->device_vendor = "tfdoctor";
  d->pci_bus_id = NULL;
  if (g_mode == MODE_FAIL_CREATE) {
    /* Listed as a physical device, but cannot be opened: the first op (any
     * op, the whole eager context fails) raises. */
    TF_SetStatus(status, TF_INTERNAL,
                 "simgpu: could not open the simulated GPU "
                 "(SIMGPU_MODE=fail-create)");
    return;
  }
  if (!g_quiet && !__atomic_exchange_n(&g_banner_printed, 1, __ATOMIC_RELAXED)) {
    /* Mirrors Metal's "Metal device set to: Apple M1" banner. */
    fprintf(stderr,
            "SimGPU device set to: SIMGPU (simulated, host memory, mode=%s)\n"
            "systemMemory: %.2f GB\n",
            g_mode_name, (double)g_memory_total / (1024.0 * 1024.0 * 1024.0));
    fflush(stderr);
  }
  set_ok(status);
}

static void pf_destroy_device(const SP_Platform* platform, SP_Device* device) {
  (void)platform;
  device->device_handle = NULL;
}

static int64_t df_get_memory_bandwidth(const SP_Device* device) {
  (void)device;
  return 10LL * 1000 * 1000 * 1000; /* bytes/s, nominal */
}

static double df_get_gflops(const SP_Device* device) {
  (void)device;
  return g_mode == MODE_SLOW ? g_slow_gflops : 10.0;
}

static void pf_create_device_fns(const SP_Platform* platform,
                                 SE_CreateDeviceFnsParams* params,
                                 TF_Status* status) {
  (void)platform;
  SP_DeviceFns* f = params->device_fns;
  f->struct_size = SP_DEVICE_FNS_STRUCT_SIZE;
  f->ext = NULL;
  f->get_numa_node = NULL; /* unknown, as on Metal: TF logs and uses 0 */
  f->get_memory_bandwidth = df_get_memory_bandwidth;
  f->get_gflops = df_get_gflops;
  set_ok(status);
}

static void pf_destroy_device_fns(const SP_Platform* platform,
                                  SP_DeviceFns* device_fns) {
  (void)platform;
  (void)device_fns;
}

static void pf_create_stream_executor(const SP_Platform* platform,
                                      SE_CreateStreamExecutorParams* params,
                                      TF_Status* status) {
  (void)platform;
  SP_StreamExecutor* se = params->stream_executor;
  memset(se, 0, sizeof(*se));
  se->struct_size = SP_STREAMEXECUTOR_STRUCT_SIZE;
  se->allocate = se_allocate;
  se->deallocate = se_deallocate;
  se->host_memory_allocate = se_host_memory_allocate;
  se->host_memory_deallocate = se_host_memory_deallocate;
  se->unified_memory_allocate = NULL;
  se->unified_memory_deallocate = NULL;
  se->get_allocator_stats = se_get_allocator_stats;
  se->device_memory_usage = se_device_memory_usage;
  se->create_stream = se_create_stream;
  se->destroy_stream = se_destroy_stream;
  se->create_stream_dependency = se_create_stream_dependency;
  se->get_stream_status = se_get_stream_status;
  se->create_event = se_create_event;
  se->destroy_event = se_destroy_event;
  se->get_event_status = se_get_event_status;
  se->record_event = se_record_event;
  se->wait_for_event = se_wait_for_event;
  se->create_timer = se_create_timer;
  se->destroy_timer = se_destroy_timer;
  se->start_timer = se_start_timer;
  se->stop_timer = se_stop_timer;
  se->memcpy_dtoh = se_memcpy_dtoh;
  se->memcpy_htod = se_memcpy_htod;
  se->memcpy_dtod = se_memcpy_dtod;
  se->sync_memcpy_dtoh = se_sync_memcpy_dtoh;
  se->sync_memcpy_htod = se_sync_memcpy_htod;
  se->sync_memcpy_dtod = se_sync_memcpy_dtod;
  se->block_host_for_event = se_block_host_for_event;
  se->block_host_until_done = se_block_host_until_done;
  se->synchronize_all_activity = se_synchronize_all_activity;
  se->mem_zero = se_mem_zero;
  se->memset = se_memset;
  se->memset32 = se_memset32;
  se->host_callback = se_host_callback;
  set_ok(status);
}

static void pf_destroy_stream_executor(const SP_Platform* platform,
                                       SP_StreamExecutor* stream_executor) {
  (void)platform;
  (void)stream_executor;
}

static void pf_create_timer_fns(const SP_Platform* platform,
                                SP_TimerFns* timer_fns, TF_Status* status) {
  (void)platform;
  timer_fns->struct_size = SP_TIMER_FNS_STRUCT_SIZE;
  timer_fns->ext = NULL;
  timer_fns->nanoseconds = timer_nanoseconds;
  set_ok(status);
}

static void pf_destroy_timer_fns(const SP_Platform* platform,
                                 SP_TimerFns* timer_fns) {
  (void)platform;
  (void)timer_fns;
}

static void destroy_platform(SP_Platform* platform) { (void)platform; }
static void destroy_platform_fns(SP_PlatformFns* platform_fns) {
  (void)platform_fns;
}

/* Entry point 1: TensorFlow calls this first (device module). */
void SE_InitPlugin(SE_PlatformRegistrationParams* const params,
                   TF_Status* const status) {
  read_config();
  if (g_mode == MODE_FAIL_INIT) {
    TF_SetStatus(status, TF_INTERNAL,
                 "simgpu: could not initialise the simulated GPU "
                 "(SIMGPU_MODE=fail-init)");
    return;
  }
  if (g_mode == MODE_UNKNOWN) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT,
                 "simgpu: unknown SIMGPU_MODE (expected ok, wrong, slow, "
                 "nokernels, fail-init, nodevice, fail-create or leak)");
    return;
  }

  SP_Platform* p = params->platform;
  p->struct_size = SP_PLATFORM_STRUCT_SIZE;
  p->ext = NULL;
  p->name = SIMGPU_PLATFORM_NAME;
  p->type = SIMGPU_DEVICE_TYPE;
  p->supports_unified_memory = 0;
  p->use_bfc_allocator = 1;
  p->force_memory_growth = 0;

  SP_PlatformFns* f = params->platform_fns;
  f->struct_size = SP_PLATFORM_FNS_STRUCT_SIZE;
  f->ext = NULL;
  f->get_device_count = pf_get_device_count;
  f->create_device = pf_create_device;
  f->destroy_device = pf_destroy_device;
  f->create_device_fns = pf_create_device_fns;
  f->destroy_device_fns = pf_destroy_device_fns;
  f->create_stream_executor = pf_create_stream_executor;
  f->destroy_stream_executor = pf_destroy_stream_executor;
  f->create_timer_fns = pf_create_timer_fns;
  f->destroy_timer_fns = pf_destroy_timer_fns;

  params->destroy_platform = destroy_platform;
  params->destroy_platform_fns = destroy_platform_fns;
  set_ok(status);
}

/* ------------------------------------------------------------------------ */
/* Mode effects on kernels                                                  */
/* ------------------------------------------------------------------------ */

static void sleep_us(double us) {
  if (us <= 0) return;
  struct timespec ts;
  ts.tv_sec = (time_t)(us / 1e6);
  ts.tv_nsec = (long)((us - (double)ts.tv_sec * 1e6) * 1e3);
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static int op_is_wrong(const char* op) {
  if (g_wrong_ops[0] == '\0') return 1;
  char key[64];
  snprintf(key, sizeof key, ",%s,", op);
  return strstr(g_wrong_ops, key) != NULL;
}

/* Called (on the device queue) after a kernel computed its correct result. */
static void apply_mode(const char* op, float* out, int64_t n, double flops) {
  if (g_mode == MODE_LEAK && g_leak_bytes > 0) {
    /* Lose memory the way a leaking driver does: allocated, used, never
     * freed.  Touched so that it counts in the resident set. */
    void* lost = malloc((size_t)g_leak_bytes);
    if (lost != NULL) {
      memset(lost, 0xab, (size_t)g_leak_bytes);
      __atomic_add_fetch(&g_leaked, g_leak_bytes, __ATOMIC_RELAXED);
    }
  }
  if (g_mode == MODE_WRONG && op_is_wrong(op)) {
    /* Deterministic relative noise of 0.5x..1x g_noise, random sign. */
    uint32_t x = 2463534242u;
    for (int64_t i = 0; i < n; ++i) {
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
      double r = 0.5 + 0.5 * (double)(x & 0xffff) / 65535.0;
      if (x & 0x10000) r = -r;
      out[i] = (float)((double)out[i] * (1.0 + g_noise * r));
    }
  } else if (g_mode == MODE_SLOW) {
    /* flops / (GFLOP/s) = ns; /1e3 = us */
    sleep_us(g_slow_latency_us + flops / g_slow_gflops / 1e3);
  }
}

/* ------------------------------------------------------------------------ */
/* Kernel helpers                                                           */
/* ------------------------------------------------------------------------ */

static void fail(TF_OpKernelContext* ctx, TF_Code code, const char* msg) {
  TF_Status* s = TF_NewStatus();
  TF_SetStatus(s, code, msg);
  TF_OpKernelContext_Failure(ctx, s);
  TF_DeleteStatus(s);
}

/* Reads a string attr into buf (NUL-terminated).  Returns 0 on error. */
static int get_attr_string(TF_OpKernelConstruction* ctx, const char* name,
                           char* buf, size_t buflen, TF_Status* s) {
  int32_t list_size = 0, total_size = 0;
  TF_OpKernelConstruction_GetAttrSize(ctx, name, &list_size, &total_size, s);
  if (TF_GetCode(s) != TF_OK) return 0;
  if (total_size < 0 || (size_t)total_size >= buflen) {
    TF_SetStatus(s, TF_INVALID_ARGUMENT, "simgpu: string attr too long");
    return 0;
  }
  memset(buf, 0, buflen);
  TF_OpKernelConstruction_GetAttrString(ctx, name, buf, (size_t)total_size, s);
  return TF_GetCode(s) == TF_OK;
}

/* Reads an int list attr of at most max_vals values.  Returns count or -1. */
static int get_attr_int_list(TF_OpKernelConstruction* ctx, const char* name,
                             int64_t* vals, int max_vals, TF_Status* s) {
  int32_t list_size = 0, total_size = 0;
  TF_OpKernelConstruction_GetAttrSize(ctx, name, &list_size, &total_size, s);
  if (TF_GetCode(s) != TF_OK) return -1;
  if (list_size > max_vals) {
    TF_SetStatus(s, TF_INVALID_ARGUMENT, "simgpu: int list attr too long");
    return -1;
  }
  if (list_size == 0) return 0;
  TF_OpKernelConstruction_GetAttrInt64List(ctx, name, vals, list_size, s);
  if (TF_GetCode(s) != TF_OK) return -1;
  return list_size;
}

/* ------------------------------------------------------------------------ */
/* MatMul                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct {
  int transpose_a;
  int transpose_b;
} matmul_kernel_t;

static void* matmul_create(TF_OpKernelConstruction* ctx) {
  matmul_kernel_t* k = (matmul_kernel_t*)calloc(1, sizeof(*k));
  TF_Status* s = TF_NewStatus();
  TF_Bool ta = 0, tb = 0;
  TF_OpKernelConstruction_GetAttrBool(ctx, "transpose_a", &ta, s);
  if (TF_GetCode(s) == TF_OK) {
    TF_OpKernelConstruction_GetAttrBool(ctx, "transpose_b", &tb, s);
  }
  if (TF_GetCode(s) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s);
  TF_DeleteStatus(s);
  k->transpose_a = ta ? 1 : 0;
  k->transpose_b = tb ? 1 : 0;
  return k;
}

static void kernel_delete(void* kernel) { free(kernel); }

/* dst[cols x rows] = transpose(src[rows x cols]) */
static void transpose(const float* src, float* dst, int64_t rows,
                      int64_t cols) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) dst[c * rows + r] = src[r * cols + c];
}

/* c[m x n] = a[m x k] * b[k x n], all row-major.  i-k-j order so the inner
 * loop is a contiguous axpy the compiler vectorises without reassociating
 * sums (results match a plain dot-product order closely). */
SIMGPU_HOT static void gemm(const float* a, const float* b, float* c, int64_t m,
                 int64_t k, int64_t n) {
  memset(c, 0, (size_t)(m * n) * sizeof(float));
  for (int64_t i = 0; i < m; ++i) {
    float* crow = c + i * n;
    const float* arow = a + i * k;
    for (int64_t p = 0; p < k; ++p) {
      const float av = arow[p];
      const float* brow = b + p * n;
      for (int64_t j = 0; j < n; ++j) crow[j] += av * brow[j];
    }
  }
}

/* One queued MatMul: it holds references to its tensors until it has run. */
typedef struct {
  TF_Tensor *a, *b, *out;
  int64_t a0, a1, b0, b1, m, kk, n;
  int transpose_a, transpose_b;
} matmul_job_t;

static void matmul_run(void* arg) {
  matmul_job_t* j = (matmul_job_t*)arg;
  float* ta_buf = NULL;
  float* tb_buf = NULL;
  const float* pa = (const float*)TF_TensorData(j->a);
  const float* pb = (const float*)TF_TensorData(j->b);
  float* pc = (float*)TF_TensorData(j->out);
  if (j->transpose_a && j->kk > 0) {
    ta_buf = (float*)malloc((size_t)(j->m * j->kk) * sizeof(float));
    transpose(pa, ta_buf, j->a0, j->a1);
    pa = ta_buf;
  }
  if (j->transpose_b && j->kk > 0) {
    tb_buf = (float*)malloc((size_t)(j->kk * j->n) * sizeof(float));
    transpose(pb, tb_buf, j->b0, j->b1);
    pb = tb_buf;
  }
  gemm(pa, pb, pc, j->m, j->kk, j->n);
  apply_mode("MatMul", pc, j->m * j->n,
             2.0 * (double)j->m * (double)j->n * (double)j->kk);
  free(ta_buf);
  free(tb_buf);
  TF_DeleteTensor(j->a);
  TF_DeleteTensor(j->b);
  TF_DeleteTensor(j->out);
  free(j);
}

static void matmul_compute(void* kernel, TF_OpKernelContext* ctx) {
  matmul_kernel_t* k = (matmul_kernel_t*)kernel;
  TF_Status* s = TF_NewStatus();
  TF_Tensor* a = NULL;
  TF_Tensor* b = NULL;
  TF_Tensor* out = NULL;

  TF_GetInput(ctx, 0, &a, s);
  if (TF_GetCode(s) == TF_OK) TF_GetInput(ctx, 1, &b, s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  if (TF_NumDims(a) != 2 || TF_NumDims(b) != 2) {
    fail(ctx, TF_INVALID_ARGUMENT, "simgpu MatMul: inputs must be 2-D");
    goto done;
  }
  {
    const int64_t a0 = TF_Dim(a, 0), a1 = TF_Dim(a, 1);
    const int64_t b0 = TF_Dim(b, 0), b1 = TF_Dim(b, 1);
    const int64_t m = k->transpose_a ? a1 : a0;
    const int64_t kk = k->transpose_a ? a0 : a1;
    const int64_t kb = k->transpose_b ? b1 : b0;
    const int64_t n = k->transpose_b ? b0 : b1;
    if (kk != kb) {
      char msg[200];
      snprintf(msg, sizeof msg,
               "Matrix size-incompatible: In[0]: [%lld,%lld], In[1]: "
               "[%lld,%lld]",
               (long long)a0, (long long)a1, (long long)b0, (long long)b1);
      fail(ctx, TF_INVALID_ARGUMENT, msg);
      goto done;
    }
    int64_t dims[2] = {m, n};
    out = TF_AllocateOutput(ctx, 0, TF_FLOAT, dims, 2,
                            (size_t)(m * n) * sizeof(float), s);
    if (TF_GetCode(s) != TF_OK) {
      TF_OpKernelContext_Failure(ctx, s);
      goto done;
    }
    if (m * n == 0) goto done;
    matmul_job_t* job = (matmul_job_t*)calloc(1, sizeof(*job));
    if (job == NULL) {
      fail(ctx, TF_RESOURCE_EXHAUSTED, "simgpu MatMul: out of host memory");
      goto done;
    }
    job->a = a; job->b = b; job->out = out;
    job->a0 = a0; job->a1 = a1; job->b0 = b0; job->b1 = b1;
    job->m = m; job->kk = kk; job->n = n;
    job->transpose_a = k->transpose_a; job->transpose_b = k->transpose_b;
    a = b = out = NULL; /* the job owns them until it has run */
    enqueue(matmul_run, job);
  }
done:
  if (a) TF_DeleteTensor(a);
  if (b) TF_DeleteTensor(b);
  if (out) TF_DeleteTensor(out);
  TF_DeleteStatus(s);
}

/* ------------------------------------------------------------------------ */
/* Conv2D (NHWC or NCHW; SAME, VALID or EXPLICIT padding; any strides and   */
/* dilations)                                                               */
/* ------------------------------------------------------------------------ */

typedef struct {
  int nchw;
  int64_t stride_h, stride_w;
  int64_t dil_h, dil_w;
  int padding; /* 0 VALID, 1 SAME, 2 EXPLICIT */
  int64_t pad_top, pad_bottom, pad_left, pad_right; /* EXPLICIT only */
} conv_kernel_t;

static void* conv_create(TF_OpKernelConstruction* ctx) {
  conv_kernel_t* k = (conv_kernel_t*)calloc(1, sizeof(*k));
  TF_Status* s = TF_NewStatus();
  char fmt[16], pad[16];
  int64_t strides[4] = {1, 1, 1, 1}, dil[4] = {1, 1, 1, 1}, ep[8] = {0};
  int n;
  if (!get_attr_string(ctx, "data_format", fmt, sizeof fmt, s)) goto err;
  if (strcmp(fmt, "NHWC") == 0) {
    k->nchw = 0;
  } else if (strcmp(fmt, "NCHW") == 0) {
    k->nchw = 1;
  } else {
    TF_SetStatus(s, TF_UNIMPLEMENTED, "simgpu Conv2D: unsupported data_format");
    goto err;
  }
  if (!get_attr_string(ctx, "padding", pad, sizeof pad, s)) goto err;
  if (strcmp(pad, "VALID") == 0) {
    k->padding = 0;
  } else if (strcmp(pad, "SAME") == 0) {
    k->padding = 1;
  } else if (strcmp(pad, "EXPLICIT") == 0) {
    k->padding = 2;
  } else {
    TF_SetStatus(s, TF_UNIMPLEMENTED, "simgpu Conv2D: unsupported padding");
    goto err;
  }
  n = get_attr_int_list(ctx, "strides", strides, 4, s);
  if (n < 0) goto err;
  if (n != 4) {
    TF_SetStatus(s, TF_INVALID_ARGUMENT,
                 "simgpu Conv2D: strides must have 4 elements");
    goto err;
  }
  {
    int has = TF_OpKernelConstruction_HasAttr(ctx, "dilations", s);
    if (TF_GetCode(s) != TF_OK) goto err;
    if (has) {
      n = get_attr_int_list(ctx, "dilations", dil, 4, s);
      if (n < 0) goto err;
      if (n != 4) {
        TF_SetStatus(s, TF_INVALID_ARGUMENT,
                     "simgpu Conv2D: dilations must have 4 elements");
        goto err;
      }
    }
  }
  if (k->padding == 2) {
    n = get_attr_int_list(ctx, "explicit_paddings", ep, 8, s);
    if (n < 0) goto err;
    if (n != 8) {
      TF_SetStatus(s, TF_INVALID_ARGUMENT,
                   "simgpu Conv2D: explicit_paddings must have 8 elements");
      goto err;
    }
  }
  {
    const int hi = k->nchw ? 2 : 1, wi = k->nchw ? 3 : 2;
    const int ni = 0, ci = k->nchw ? 1 : 3;
    if (strides[ni] != 1 || strides[ci] != 1 || dil[ni] != 1 || dil[ci] != 1) {
      TF_SetStatus(s, TF_UNIMPLEMENTED,
                   "simgpu Conv2D: strides/dilations in the batch and depth "
                   "dimensions must be 1");
      goto err;
    }
    k->stride_h = strides[hi];
    k->stride_w = strides[wi];
    k->dil_h = dil[hi];
    k->dil_w = dil[wi];
    k->pad_top = ep[2 * hi];
    k->pad_bottom = ep[2 * hi + 1];
    k->pad_left = ep[2 * wi];
    k->pad_right = ep[2 * wi + 1];
    if (k->stride_h < 1 || k->stride_w < 1 || k->dil_h < 1 || k->dil_w < 1) {
      TF_SetStatus(s, TF_INVALID_ARGUMENT,
                   "simgpu Conv2D: strides and dilations must be >= 1");
      goto err;
    }
  }
  TF_DeleteStatus(s);
  return k;
err:
  TF_OpKernelConstruction_Failure(ctx, s);
  TF_DeleteStatus(s);
  return k;
}

/* Output size and leading padding for one spatial dimension. */
static int conv_out_size(int64_t in, int64_t ksize, int64_t stride,
                         int64_t dil, int padding, int64_t pad_lo,
                         int64_t pad_hi, int64_t* out, int64_t* pad_before) {
  const int64_t eff = (ksize - 1) * dil + 1;
  if (padding == 0) { /* VALID */
    if (in < eff) return 0;
    *out = (in - eff) / stride + 1;
    *pad_before = 0;
  } else if (padding == 1) { /* SAME */
    *out = (in + stride - 1) / stride;
    int64_t total = (*out - 1) * stride + eff - in;
    if (total < 0) total = 0;
    *pad_before = total / 2;
  } else { /* EXPLICIT */
    const int64_t padded = in + pad_lo + pad_hi;
    if (padded < eff) return 0;
    *out = (padded - eff) / stride + 1;
    *pad_before = pad_lo;
  }
  return 1;
}

SIMGPU_HOT static void conv_loops(const float* x, const float* f, float* y,
                                  int64_t N, int64_t C, int64_t H, int64_t W,
                                  int64_t KH, int64_t KW, int64_t OC,
                                  int64_t OH, int64_t OW, int64_t pt,
                                  int64_t pl, const conv_kernel_t* k,
                                  int64_t total) {
  /* element strides of input and output in their layout */
  const int64_t xsn = C * H * W;
  const int64_t xsc = k->nchw ? H * W : 1;
  const int64_t xsh = k->nchw ? W : W * C;
  const int64_t xsw = k->nchw ? 1 : C;
  const int64_t ysn = OC * OH * OW;
  const int64_t ysc = k->nchw ? OH * OW : 1;
  const int64_t ysh = k->nchw ? OW : OW * OC;
  const int64_t ysw = k->nchw ? 1 : OC;
  memset(y, 0, (size_t)total * sizeof(float));
  for (int64_t b = 0; b < N; ++b) {
    for (int64_t oh = 0; oh < OH; ++oh) {
      for (int64_t ow = 0; ow < OW; ++ow) {
        float* yp = y + b * ysn + oh * ysh + ow * ysw;
        for (int64_t kh = 0; kh < KH; ++kh) {
          const int64_t ih = oh * k->stride_h - pt + kh * k->dil_h;
          if (ih < 0 || ih >= H) continue;
          for (int64_t kw = 0; kw < KW; ++kw) {
            const int64_t iw = ow * k->stride_w - pl + kw * k->dil_w;
            if (iw < 0 || iw >= W) continue;
            const float* xp = x + b * xsn + ih * xsh + iw * xsw;
            const float* fp = f + (kh * KW + kw) * C * OC;
            for (int64_t c = 0; c < C; ++c) {
              const float xv = xp[c * xsc];
              const float* frow = fp + c * OC;
              if (ysc == 1) {
                for (int64_t o = 0; o < OC; ++o) yp[o] += xv * frow[o];
              } else {
                for (int64_t o = 0; o < OC; ++o) yp[o * ysc] += xv * frow[o];
              }
            }
          }
        }
      }
    }
  }
}

/* One queued Conv2D: it holds references to its tensors until it has run. */
typedef struct {
  TF_Tensor *in, *filt, *out;
  conv_kernel_t k;
  int64_t N, C, H, W, KH, KW, OC, OH, OW, pt, pl, total;
} conv_job_t;

static void conv_run(void* arg) {
  conv_job_t* j = (conv_job_t*)arg;
  float* y = (float*)TF_TensorData(j->out);
  conv_loops((const float*)TF_TensorData(j->in),
             (const float*)TF_TensorData(j->filt), y, j->N, j->C, j->H, j->W,
             j->KH, j->KW, j->OC, j->OH, j->OW, j->pt, j->pl, &j->k, j->total);
  apply_mode("Conv2D", y, j->total,
             2.0 * (double)j->total * (double)(j->KH * j->KW) * (double)j->C);
  TF_DeleteTensor(j->in);
  TF_DeleteTensor(j->filt);
  TF_DeleteTensor(j->out);
  free(j);
}

static void conv_compute(void* kernel, TF_OpKernelContext* ctx) {
  conv_kernel_t* k = (conv_kernel_t*)kernel;
  TF_Status* s = TF_NewStatus();
  TF_Tensor* in = NULL;
  TF_Tensor* filt = NULL;
  TF_Tensor* out = NULL;

  TF_GetInput(ctx, 0, &in, s);
  if (TF_GetCode(s) == TF_OK) TF_GetInput(ctx, 1, &filt, s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  if (TF_NumDims(in) != 4 || TF_NumDims(filt) != 4) {
    fail(ctx, TF_INVALID_ARGUMENT,
         "simgpu Conv2D: input and filter must be 4-D");
    goto done;
  }
  {
    const int64_t N = TF_Dim(in, 0);
    const int64_t C = k->nchw ? TF_Dim(in, 1) : TF_Dim(in, 3);
    const int64_t H = k->nchw ? TF_Dim(in, 2) : TF_Dim(in, 1);
    const int64_t W = k->nchw ? TF_Dim(in, 3) : TF_Dim(in, 2);
    /* filter is always HWIO */
    const int64_t KH = TF_Dim(filt, 0), KW = TF_Dim(filt, 1);
    const int64_t FC = TF_Dim(filt, 2), OC = TF_Dim(filt, 3);
    if (FC != C) {
      /* Grouped convolution is not simulated. */
      fail(ctx, TF_INVALID_ARGUMENT,
           "simgpu Conv2D: filter in_depth must equal input depth");
      goto done;
    }
    int64_t OH = 0, OW = 0, pt = 0, pl = 0;
    if (!conv_out_size(H, KH, k->stride_h, k->dil_h, k->padding, k->pad_top,
                       k->pad_bottom, &OH, &pt) ||
        !conv_out_size(W, KW, k->stride_w, k->dil_w, k->padding, k->pad_left,
                       k->pad_right, &OW, &pl)) {
      fail(ctx, TF_INVALID_ARGUMENT,
           "simgpu Conv2D: filter larger than (padded) input");
      goto done;
    }
    int64_t dims[4];
    if (k->nchw) {
      dims[0] = N; dims[1] = OC; dims[2] = OH; dims[3] = OW;
    } else {
      dims[0] = N; dims[1] = OH; dims[2] = OW; dims[3] = OC;
    }
    const int64_t total = N * OH * OW * OC;
    out = TF_AllocateOutput(ctx, 0, TF_FLOAT, dims, 4,
                            (size_t)total * sizeof(float), s);
    if (TF_GetCode(s) != TF_OK) {
      TF_OpKernelContext_Failure(ctx, s);
      goto done;
    }
    if (total == 0) goto done;
    conv_job_t* job = (conv_job_t*)calloc(1, sizeof(*job));
    if (job == NULL) {
      fail(ctx, TF_RESOURCE_EXHAUSTED, "simgpu Conv2D: out of host memory");
      goto done;
    }
    job->in = in; job->filt = filt; job->out = out; job->k = *k;
    job->N = N; job->C = C; job->H = H; job->W = W; job->KH = KH;
    job->KW = KW; job->OC = OC; job->OH = OH; job->OW = OW; job->pt = pt;
    job->pl = pl; job->total = total;
    in = filt = out = NULL; /* the job owns them until it has run */
    enqueue(conv_run, job);
  }
done:
  if (in) TF_DeleteTensor(in);
  if (filt) TF_DeleteTensor(filt);
  if (out) TF_DeleteTensor(out);
  TF_DeleteStatus(s);
}

/* ------------------------------------------------------------------------ */
/* Entry point 2: kernel module                                             */
/* ------------------------------------------------------------------------ */

static void register_float_kernel(const char* op, const char* name,
                                  void* (*create)(TF_OpKernelConstruction*),
                                  void (*compute)(void*, TF_OpKernelContext*)) {
  TF_Status* s = TF_NewStatus();
  TF_KernelBuilder* b =
      TF_NewKernelBuilder(op, SIMGPU_DEVICE_TYPE, create, compute,
                          kernel_delete);
  TF_KernelBuilder_TypeConstraint(b, "T", TF_FLOAT, s);
  if (TF_GetCode(s) == TF_OK) {
    TF_RegisterKernelBuilder(name, b, s);
  } else {
    TF_DeleteKernelBuilder(b);
  }
  if (TF_GetCode(s) != TF_OK) {
    fprintf(stderr, "simgpu: could not register %s kernel: %s\n", op,
            TF_Message(s));
  }
  TF_DeleteStatus(s);
}

void TF_InitKernel(void) {
  read_config();
  if (g_mode != MODE_OK && g_mode != MODE_WRONG && g_mode != MODE_SLOW &&
      g_mode != MODE_LEAK) {
    return;
  }
  register_float_kernel("MatMul", "SimGpuMatMul", matmul_create,
                        matmul_compute);
  register_float_kernel("Conv2D", "SimGpuConv2D", conv_create, conv_compute);
}

/* ------------------------------------------------------------------------ */
/* Entry point 3: graph module                                              */
/* ------------------------------------------------------------------------ */

/* Like tensorflow-metal, register a (here: do-nothing) plugin graph optimizer
 * for device type GPU; TensorFlow then logs "Plugin optimizer for device_type
 * GPU is enabled." when it optimises a graph.  The optimizer configuration
 * turns off two Grappler passes that run after placement and would create
 * nodes this device has no kernels for: the layout optimizer (rewrites Conv2D
 * to NCHW for any GPU and inserts Transpose nodes: "No registered 'Transpose'
 * OpKernel for 'GPU' devices") and the remapper (fuses Conv2D+BiasAdd+Relu
 * into _FusedConv2D: "No registered '_FusedConv2D' OpKernel").  Real plugins
 * register kernels for what they leave on. */

static void buffer_free(void* data, size_t length) {
  (void)length;
  free(data);
}

static void graph_optimize(void* optimizer, const TF_Buffer* graph_buf,
                           const TF_GrapplerItem* item,
                           TF_Buffer* optimized_graph_buf, TF_Status* status) {
  (void)optimizer;
  (void)item;
  void* copy = malloc(graph_buf->length ? graph_buf->length : 1);
  if (copy == NULL) {
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "simgpu: out of host memory");
    return;
  }
  if (graph_buf->length) memcpy(copy, graph_buf->data, graph_buf->length);
  optimized_graph_buf->data = copy;
  optimized_graph_buf->length = graph_buf->length;
  optimized_graph_buf->data_deallocator = buffer_free;
  set_ok(status);
}

void TF_InitGraph(TP_OptimizerRegistrationParams* params, TF_Status* status) {
  read_config();
  params->struct_size = TP_OPTIMIZER_REGISTRATION_PARAMS_STRUCT_SIZE;
  params->device_type = SIMGPU_DEVICE_TYPE;
  params->optimizer_configs->struct_size = TP_OPTIMIZER_CONFIGS_STRUCT_SIZE;
  params->optimizer_configs->layout_optimizer = TF_TriState_Off;
  params->optimizer_configs->remapping = TF_TriState_Off;
  params->optimizer->struct_size = TP_OPTIMIZER_STRUCT_SIZE;
  params->optimizer->create_func = NULL;
  params->optimizer->optimize_func = graph_optimize;
  params->optimizer->destroy_func = NULL;
  set_ok(status);
}

/* For tests and `strings libsimgpu.so`: identifies the build. */
const char* simgpu_version(void) { return "simgpu " SIMGPU_VERSION; }
