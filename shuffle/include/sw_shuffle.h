/* SPDX-License-Identifier: MIT */
/*
 * shuffle: map-output store and the fetch protocol (server and client).
 *
 * A map task's output is R partitions, stored under (job, map, partition). The store keeps them
 * in one registered memory arena up to a budget and spills to a per-job file beyond it. The
 * server streams a requested range in CRC32C-protected chunks (optionally lz4/zstd compressed),
 * or over a backend with one-sided reads hands out an rkey for the client to read itself. Every
 * request carries an HMAC-SHA256 with the job's secret. See shuffle/README.md for the byte
 * layout of the frames.
 *
 * Return codes: 0 on success, negative errno on failure. The codes every call may return are
 * listed with the call; sw_shuffle_strerror() describes them.
 */
#ifndef SW_SHUFFLE_H
#define SW_SHUFFLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SW_SHUFFLE_VERSION       4
#define SW_SHUFFLE_CHUNK_DEFAULT (1u << 20)
#define SW_SHUFFLE_CHUNK_MAX     (16u << 20)
#define SW_SHUFFLE_SECRET_MIN    16 /* shorter job secrets are refused: guessable */
#define SW_SHUFFLE_SECRET_MAX    64
#define SW_SHUFFLE_SECRET_LEN    32         /* what sw_shuffle_secret_new() makes */
#define SW_SHUFFLE_TO_END        UINT64_MAX /* request length: everything from offset on */

/* Log sink: one line without the trailing newline. A NULL fn logs to stderr. */
typedef void (*sw_shuffle_log_fn)(void *arg, const char *line);
struct sw_shuffle_log {
	sw_shuffle_log_fn fn;
	void *arg;
};

/* Describes a return code of this module (negative errno). */
const char *sw_shuffle_strerror(int err);

/* ---------------------------------------------------------------------------------------- */
/* Store */

struct sw_shuffle_store;

struct sw_shuffle_store_conf {
	size_t mem_budget;     /* bytes of in-memory storage; 0 = 64 MiB */
	const char *spill_dir; /* directory for spill files (required) */
	double spill_at;       /* start spilling above this fraction of the budget; 0 = 0.85 */
	double pause_at;       /* refuse writers (-EAGAIN) above it; 0 = 0.95 */
	double resume_below;   /* spill down to and resume writers below it; 0 = 0.70 */
	/* Every partition is written to a named file in spill_dir with an index before its put
	 * returns, and create() reopens the jobs it finds there: map output survives a restart
	 * of the process (README.md, "Durable stores"). One durable store per directory. */
	bool durable;
	struct sw_shuffle_log log;
};

/* -EINVAL (bad fractions: need 0 < resume_below < spill_at <= pause_at <= 1, no spill_dir),
 * -ENOMEM; durable: -errno when spill_dir cannot be read (a job whose files are damaged is
 * logged and left out instead). The memory is one arena that a server registers with its
 * transport. */
int sw_shuffle_store_create(const struct sw_shuffle_store_conf *conf,
                            struct sw_shuffle_store **out);
/* Frees every job (memory and spill files). Destroy servers using the store first. */
void sw_shuffle_store_destroy(struct sw_shuffle_store *st);

/* Makes a new job secret of SW_SHUFFLE_SECRET_LEN random bytes (OpenSSL's RAND_bytes): the
 * controller makes one per job and hands it to the map side and the job's reducers. 0 or -EIO. */
int sw_shuffle_secret_new(uint8_t secret[SW_SHUFFLE_SECRET_LEN]);

/* -EEXIST (job already there with this secret: in a durable store also one reopened from
 * disk, or whose files are left in spill_dir), -EKEYREJECTED (a job with this id but another
 * secret is there: an earlier job's), -EINVAL (secret shorter than SW_SHUFFLE_SECRET_MIN or
 * longer than SW_SHUFFLE_SECRET_MAX); durable: -errno creating its files. */
int sw_shuffle_job_add(struct sw_shuffle_store *st, uint64_t job, const void *secret,
                       size_t secret_len);
/* Frees the job's partitions, memory and spill file. Parts that a fetch still reads are freed
 * when the fetch ends. -ESRCH if the job is unknown. */
int sw_shuffle_job_remove(struct sw_shuffle_store *st, uint64_t job);

/*
 * Stores one partition of a map output (copied). Returns -ESRCH (unknown job), -EEXIST (already
 * stored), -EAGAIN (writers are paused: memory above pause_at that cannot be spilled because
 * fetches hold it; wait with sw_shuffle_store_wait_resume()), or a spill file error such as
 * -ENOSPC / -EFBIG / -EIO (nothing stored, earlier data intact).
 */
int sw_shuffle_put(struct sw_shuffle_store *st, uint64_t job, uint32_t map, uint32_t part,
                   const void *data, size_t len);

/* Waits until writers are not paused. 0, or -ETIMEDOUT after timeout_ms. */
int sw_shuffle_store_wait_resume(struct sw_shuffle_store *st, int timeout_ms);

struct sw_shuffle_store_stats {
	size_t mem_budget;
	size_t mem_used;  /* arena bytes held by partitions (64-byte granules) */
	size_t meta_used; /* heap bytes of the index: per partition ~112 B + 4 B per 64 KiB */
	size_t mem_peak;  /* highest mem_used + meta_used seen: what the watermarks compare */
	uint64_t parts_mem;
	uint64_t parts_disk;
	uint64_t spilled_bytes; /* bytes written to spill files, in total */
	uint64_t spill_errors;
	uint64_t pauses; /* times writers were paused */
	bool paused;
};
void sw_shuffle_store_stats(struct sw_shuffle_store *st, struct sw_shuffle_store_stats *out);

/* Calls @p fn for every partition the store holds, under the store's lock (@p fn must not call
 * into the store). Stops at the first non-zero return of @p fn and returns it; else 0. A
 * process restarted on a durable store tells from it which map output survived. */
int sw_shuffle_store_each_part(struct sw_shuffle_store *st,
                               int (*fn)(void *arg, uint64_t job, uint32_t map, uint32_t part),
                               void *arg);

/* Length of a stored partition: -ESRCH (job), -ENOENT (partition). */
int sw_shuffle_part_len(struct sw_shuffle_store *st, uint64_t job, uint32_t map, uint32_t part,
                        uint64_t *len);

/* Copies len bytes at off of a partition into buf: -ESRCH, -ENOENT, -ERANGE, -EIO. */
int sw_shuffle_read(struct sw_shuffle_store *st, uint64_t job, uint32_t map, uint32_t part,
                    uint64_t off, void *buf, size_t len);

/* ---------------------------------------------------------------------------------------- */
/* Counters of a server or a client (each side fills the fields it owns). */

struct sw_shuffle_counters {
	uint64_t requests;     /* server: fetch requests received */
	uint64_t bytes_served; /* server: partition bytes streamed or leased */
	uint64_t chunks_sent;
	uint64_t leases;        /* server: one-sided rkey answers */
	uint64_t refused_hmac;  /* server: requests with a wrong HMAC (or replayed) */
	uint64_t replays;       /* server: authentic requests whose nonce was already used */
	uint64_t bad_frames;    /* both: corrupt or truncated frames received */
	uint64_t bad_version;   /* server: requests of another protocol version */
	uint64_t unknown_job;   /* server */
	uint64_t unknown_part;  /* server */
	uint64_t bad_range;     /* server: ranges past the end */
	uint64_t io_errors;     /* server: spill file read errors */
	uint64_t peers_lost;    /* both: connections that broke mid-transfer */
	uint64_t crc_failures;  /* client: chunks whose CRC32C did not match */
	uint64_t refetches;     /* client: chunks fetched again after a CRC failure */
	uint64_t bytes_fetched; /* client: verified bytes delivered to the caller */
	uint64_t fetch_errors;  /* client: fetches that returned an error */
	uint64_t refused_conns; /* server: connections closed at once, over max_conns */
	uint64_t idle_closed;   /* server: connections closed after idle_ms without traffic */
};

/* ---------------------------------------------------------------------------------------- */
/* Server: serves fetches from a store over one sw_dp context, driven by one thread: either its
 * own context and loop (create + run), or a context the caller owns and polls in its own loop
 * (attach + event + progress), so that the caller reads the context's transport counters. */

struct sw_shuffle_server;
struct sw_dp_ctx;
struct sw_dp_config;
struct sw_dp_event;
struct sw_dp_counters;

/* The largest message a server's context takes from a peer (sw_dp_config.max_recv): a request
 * is 96 bytes, so a peer cannot make the server allocate more before it proved a key. */
#define SW_SHUFFLE_SERVER_MAX_RECV 4096

struct sw_shuffle_server_conf {
	const char *backend;     /* sw_dp backend: "tcp", "ucx", NULL = automatic */
	const char *ucx_tls;     /* UCX_TLS for ucx (e.g. "sm", "tcp"); NULL = UCX's choice */
	const char *listen_addr; /* "IPv4:port"; port 0 picks one (sw_shuffle_server_addr) */
	uint32_t chunk;          /* default chunk size; 0 = SW_SHUFFLE_CHUNK_DEFAULT */
	uint32_t inflight;       /* chunks in flight per fetch; 0 = 8 */
	uint32_t max_conns;      /* connections served at once, more are closed at once; 0 = 1024 */
	int idle_ms;             /* a connection with no message either way for this long is closed;
	                          * 0 = 60000 */
	/* Hand out one-sided leases where the backend has gets. Off by default: a lease's key
	 * opens the whole store arena, every job's data, readable and writable (README.md). */
	bool one_sided;
	struct sw_shuffle_log log;
};

/* The dataplane settings a server's context needs (backend, ucx_tls, max_recv): a caller
 * opening the context for sw_shuffle_server_attach() starts from these. */
void sw_shuffle_server_dp_config(const struct sw_shuffle_server_conf *conf,
                                 struct sw_dp_config *dc);

/* Opens its own transport, registers the store's arena, listens; serve with run().
 * -EINVAL, -ENOMEM, sw_dp codes. */
int sw_shuffle_server_create(struct sw_shuffle_store *st, const struct sw_shuffle_server_conf *conf,
                             struct sw_shuffle_server **out);
/*
 * Serves on ctx, which the caller opened (with sw_shuffle_server_dp_config's settings), polls
 * and closes: the server listens on it (a context has one listener) and owns every endpoint
 * and send on it, so the context serves this server alone. The caller hands every event it
 * polls to sw_shuffle_server_event() and calls sw_shuffle_server_progress() after each batch
 * and at least every second (idle connections are closed there). -EINVAL, -ENOMEM, sw_dp codes.
 */
int sw_shuffle_server_attach(struct sw_shuffle_store *st, struct sw_dp_ctx *ctx,
                             const struct sw_shuffle_server_conf *conf,
                             struct sw_shuffle_server **out);
/* Handles one event of the server's context (and releases it). */
void sw_shuffle_server_event(struct sw_shuffle_server *srv, struct sw_dp_event *ev);
/* Moves every connection's answers forward as far as credits allow; closes broken and idle
 * connections. */
void sw_shuffle_server_progress(struct sw_shuffle_server *srv);
/* Closes every connection (ends leases and unpins); an own context is closed too. An attached
 * server's context must be closed right after, without polling it in between (its pending
 * sends name the server's freed buffers). NULL is a no-op. */
void sw_shuffle_server_destroy(struct sw_shuffle_server *srv);
/* The bound address "IP:port". 0 or -EINVAL (buffer too small). */
int sw_shuffle_server_addr(struct sw_shuffle_server *srv, char *buf, size_t len);
/* Serves a created server until sw_shuffle_server_stop(); from the thread that owns srv.
 * 0 or -EIO. */
int sw_shuffle_server_run(struct sw_shuffle_server *srv);
/* Makes run() return; safe from any thread and from a signal handler. */
void sw_shuffle_server_stop(struct sw_shuffle_server *srv);
/* Counters; safe from any thread (each field is read atomically). */
void sw_shuffle_server_counters(struct sw_shuffle_server *srv, struct sw_shuffle_counters *out);
/* TEST ONLY: flips one payload byte of the next data chunk sent, after its CRC and tag were
 * computed, so that tests can check that clients detect and re-fetch a corrupted chunk. */
void sw_shuffle_server_corrupt_next_chunk(struct sw_shuffle_server *srv);

/* ---------------------------------------------------------------------------------------- */
/* Fetching. The fetcher runs many fetches from many servers at once on one sw_dp context that
 * the caller owns and polls in its own loop; it never blocks. The client is the blocking form
 * for one server: a fetcher on a context of its own, waited on. */

enum sw_shuffle_codec {
	SW_SHUFFLE_RAW = 0,
	SW_SHUFFLE_LZ4 = 1,
	SW_SHUFFLE_ZSTD = 2,
};

struct sw_shuffle_fetch {
	uint64_t job;
	const void *secret; /* the job's secret */
	size_t secret_len;
	uint32_t map, part;
	uint64_t offset;
	uint64_t length; /* SW_SHUFFLE_TO_END for the rest of the partition */
};

/* Servers a fetcher fetches from at once by default (Hadoop's mapreduce.reduce.shuffle.
 * parallelcopies). */
#define SW_SHUFFLE_PARALLEL_DEFAULT 5

struct sw_shuffle_fetcher;
struct sw_shuffle_fetch_op;

struct sw_shuffle_fetcher_conf {
	uint32_t parallel;           /* servers with a fetch running at once; 0 = 5 */
	uint32_t chunk;              /* chunk size asked for; 0 = the server's default */
	enum sw_shuffle_codec codec; /* compression asked for (the server may send raw) */
	bool one_sided;              /* read memory-resident data with sw_dp_get() if possible */
	uint32_t retries;            /* re-fetches of a chunk with a bad CRC; 0 = 3 */
	int timeout_ms;              /* no sign of life from the server for this long fails the
	                              * fetch running on it; 0 = 10000 */
	int deadline_ms;    /* a whole fetch, re-fetches included, fails after it; 0 = 600000 */
	uint64_t max_fetch; /* the most a fetch without a buffer allocates for an answer (a
	                     * server announcing more gets -EFBIG); 0 = 1 GiB */
	struct sw_shuffle_log log;
	/* Called as a connection to a server closes, with its endpoint's transport counters
	 * (sw_dp_ep_counters: what the link carried to this side, frame headers included), so
	 * that the caller can keep per-server byte counts past a connection's life. May be NULL.
	 * It must not call the fetcher. */
	void (*conn_closed)(void *arg, const char *server, const struct sw_dp_counters *c);
	void *arg;
};

/* Sets what a fetcher's context needs in an initialised config (max_recv: the largest answer
 * frame, a compressed chunk of SW_SHUFFLE_CHUNK_MAX) and what serves it best (spin_us 50: a
 * thread waiting in sw_dp_wait for answers polls before it sleeps). */
void sw_shuffle_fetcher_dp_config(struct sw_dp_config *dc);
/*
 * A fetcher on ctx, which the caller opened (sw_shuffle_fetcher_dp_config), polls and closes.
 * The fetcher owns every endpoint and send on it: the caller hands it every event it polls
 * (sw_shuffle_fetcher_event) and calls sw_shuffle_fetcher_progress() after each batch and
 * when the time it returned has passed. -EINVAL, -ENOMEM.
 */
int sw_shuffle_fetcher_attach(struct sw_dp_ctx *ctx, const struct sw_shuffle_fetcher_conf *conf,
                              struct sw_shuffle_fetcher **out);
/* Drops every fetch without calling its callback. Close the context right after, without
 * polling it in between. Not from a done callback. NULL is a no-op. */
void sw_shuffle_fetcher_destroy(struct sw_shuffle_fetcher *fc);

/*
 * A fetch's end: status 0 with len bytes in data, or a negative code (data NULL, len 0). data
 * is the caller's buffer when one was given, else a malloc'd buffer (NULL when len is 0) the
 * callback now owns. Called from sw_shuffle_fetcher_event() or _progress(); it may add and
 * cancel fetches. op is freed when the callback returns.
 * Codes: -ESRCH (job removed), -ENOENT (unknown partition), -ERANGE (past the end), -EACCES
 * (wrong secret, or a job the server does not have: it tells the two apart only to a peer that
 * proved a key), -EPROTONOSUPPORT (server speaks another version), -EBADMSG (corrupt frame),
 * -EILSEQ (tag or CRC still wrong after the retries), -ECONNRESET (server unreachable or gone),
 * -ETIMEDOUT (no sign of life for timeout_ms, or past deadline_ms), -EIO (server could not
 * read its spill file), -ENOBUFS (answer longer than the caller's buffer), -EFBIG (answer above
 * max_fetch), -ENOMEM.
 */
typedef void (*sw_shuffle_fetch_done_fn)(void *arg, struct sw_shuffle_fetch_op *op, int status,
                                         uint8_t *data, uint64_t len);

/*
 * Queues a fetch of f (copied, secret included) from server "IP:port", into buf (cap bytes) or,
 * with buf NULL, into a buffer allocated for the answer. It starts when its server's connection
 * has fewer than 4 requests unanswered (pipelining; one running fetch at a time when leases are
 * read) and fewer than `parallel` servers are busy; its deadline counts from then. *out (may
 * be NULL) identifies it for sw_shuffle_fetch_cancel() until done is called. 0, -EINVAL (bad
 * argument or secret length), -ENOMEM. done is never called from inside this call.
 */
int sw_shuffle_fetcher_add(struct sw_shuffle_fetcher *fc, const char *server,
                           const struct sw_shuffle_fetch *f, void *buf, size_t cap,
                           sw_shuffle_fetch_done_fn done, void *arg,
                           struct sw_shuffle_fetch_op **out);
/* Drops a fetch whose callback has not run; it will not run. A fetch whose answer is arriving
 * closes its connection (the others queued on it start on a new one). */
void sw_shuffle_fetch_cancel(struct sw_shuffle_fetch_op *op);
/* Handles one event of the fetcher's context (and releases it). */
void sw_shuffle_fetcher_event(struct sw_shuffle_fetcher *fc, struct sw_dp_event *ev);
/* Sends what waited for credits, fails fetches past their time, starts waiting ones. Returns
 * the ms until it should be called again at the latest, or -1 when no fetch is running. */
int sw_shuffle_fetcher_progress(struct sw_shuffle_fetcher *fc);
void sw_shuffle_fetcher_counters(const struct sw_shuffle_fetcher *fc,
                                 struct sw_shuffle_counters *out);

/* Client: blocking fetches from one server, on a context of its own (one thread). */

struct sw_shuffle_client;

struct sw_shuffle_client_conf {
	const char *backend; /* as the server's */
	const char *ucx_tls;
	const char *server_addr;     /* "IP:port" */
	uint32_t chunk;              /* chunk size asked for; 0 = the server's default */
	enum sw_shuffle_codec codec; /* compression asked for (the server may send raw) */
	bool one_sided;              /* read memory-resident data with sw_dp_get() if possible */
	uint32_t retries;            /* re-fetches of a chunk with a bad CRC; 0 = 3 */
	int timeout_ms;              /* no progress for this long fails a fetch; 0 = 10000 */
	int deadline_ms;    /* a whole fetch, re-fetches included, fails after it; 0 = 600000 */
	uint64_t max_fetch; /* the most sw_shuffle_client_fetch() allocates for an answer (a
	                     * server announcing more gets -EFBIG); 0 = 1 GiB */
	struct sw_shuffle_log log;
};

/* Opens the transport and connects. -EINVAL, -ENOMEM, sw_dp codes. */
int sw_shuffle_client_create(const struct sw_shuffle_client_conf *conf,
                             struct sw_shuffle_client **out);
void sw_shuffle_client_destroy(struct sw_shuffle_client *cl);

/*
 * Fetches a range, verifying every chunk's CRC32C (re-fetching bad chunks up to `retries`
 * times). On success *data is a malloc'd buffer of *len bytes (NULL when 0) for the caller to
 * free. Errors: those of sw_shuffle_fetch_done_fn, and -EINVAL (bad secret length). After
 * -ECONNRESET / -ETIMEDOUT / -EBADMSG / -EPROTONOSUPPORT the client is unusable (-ENOTCONN):
 * destroy it.
 */
int sw_shuffle_client_fetch(struct sw_shuffle_client *cl, const struct sw_shuffle_fetch *f,
                            uint8_t **data, uint64_t *len);
/* The same into the caller's buffer of cap bytes (reused across fetches, it saves the page
 * faults of a fresh allocation). Also -ENOBUFS when the range is longer than cap (the answer
 * is drained; the client stays usable) and -EINVAL for a NULL buf. */
int sw_shuffle_client_fetch_into(struct sw_shuffle_client *cl, const struct sw_shuffle_fetch *f,
                                 void *buf, size_t cap, uint64_t *len);
void sw_shuffle_client_counters(struct sw_shuffle_client *cl, struct sw_shuffle_counters *out);

#ifdef __cplusplus
}
#endif
#endif
