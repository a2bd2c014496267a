/* SPDX-License-Identifier: MIT */
#include "samples.h"

static uint8_t nonce_a[SW_WIRE_NONCE_LEN] = {1, 2, 3}, nonce_c[SW_WIRE_NONCE_LEN] = {4, 5, 6};
static uint8_t mac[SW_WIRE_MAC_LEN] = {7, 8, 9}, secret[32] = {10, 11, 12};

static SwWire__Hello hello = {
        PROTOBUF_C_MESSAGE_INIT(&sw_wire__hello__descriptor),
        .version = SW_WIRE_VERSION,
        .node_id = "r1n2",
        .rack = 1,
        .map_slots = 2,
        .reduce_slots = 3,
        .shuffle_addr = "127.0.0.2:7070",
        .boot_epoch = 1700000000123ull,
        .agent_nonce = {SW_WIRE_NONCE_LEN, nonce_a},
        .replica_addr = "127.0.0.2:7071",
};
static SwWire__Challenge challenge = {
        PROTOBUF_C_MESSAGE_INIT(&sw_wire__challenge__descriptor),
        .controller_nonce = {SW_WIRE_NONCE_LEN, nonce_c},
        .mac = {SW_WIRE_MAC_LEN, mac},
};
static SwWire__HeldOutput held0 = {PROTOBUF_C_MESSAGE_INIT(&sw_wire__held_output__descriptor),
                                   .job = 42, .map = 7, .partitions = 4};
static SwWire__HeldOutput held1 = {PROTOBUF_C_MESSAGE_INIT(&sw_wire__held_output__descriptor),
                                   .job = 43, .map = 0, .partitions = 1};
static SwWire__HeldOutput *held[] = {&held0, &held1};
static SwWire__Auth auth = {PROTOBUF_C_MESSAGE_INIT(&sw_wire__auth__descriptor),
                            .mac = {SW_WIRE_MAC_LEN, mac}, .n_held = 2, .held = held};
static SwWire__Welcome welcome = {PROTOBUF_C_MESSAGE_INIT(&sw_wire__welcome__descriptor),
                                  .heartbeat_ms = 3000, .lost_after_ms = 30000};
static SwWire__Refused refused = {PROTOBUF_C_MESSAGE_INIT(&sw_wire__refused__descriptor),
                                  .reason = "wrong cluster key"};

static SwWire__TaskRef map7 = {PROTOBUF_C_MESSAGE_INIT(&sw_wire__task_ref__descriptor), .job = 42,
                               .kind = SW_WIRE__TASK_KIND__MAP, .task = 7, .attempt = 1};
static SwWire__TaskRef red3 = {PROTOBUF_C_MESSAGE_INIT(&sw_wire__task_ref__descriptor), .job = 42,
                               .kind = SW_WIRE__TASK_KIND__REDUCE, .task = 3};

static SwWire__RackBytes rb0 = {PROTOBUF_C_MESSAGE_INIT(&sw_wire__rack_bytes__descriptor),
                                .rack = 0, .rx_bytes = 1ull << 40};
static SwWire__RackBytes rb2 = {PROTOBUF_C_MESSAGE_INIT(&sw_wire__rack_bytes__descriptor),
                                .rack = 2, .rx_bytes = 12345};
static SwWire__RackBytes *netsat[] = {&rb0, &rb2};
static SwWire__Partition p0 = {PROTOBUF_C_MESSAGE_INIT(&sw_wire__partition__descriptor),
                               .reduce = 0, .bytes = 1000, .crc32c = 0xdeadbeef};
static SwWire__Partition p1 = {PROTOBUF_C_MESSAGE_INIT(&sw_wire__partition__descriptor),
                               .reduce = 1, .bytes = 0, .crc32c = 0};
static SwWire__Partition *parts[] = {&p0, &p1};
static SwWire__TaskEvent started = {PROTOBUF_C_MESSAGE_INIT(&sw_wire__task_event__descriptor),
                                    .type = SW_WIRE__TASK_EVENT__TYPE__STARTED, .task = &red3};
static SwWire__TaskEvent finished = {PROTOBUF_C_MESSAGE_INIT(&sw_wire__task_event__descriptor),
                                     .type = SW_WIRE__TASK_EVENT__TYPE__FINISHED, .task = &map7,
                                     .n_partitions = 2, .partitions = parts};
static SwWire__TaskEvent failed = {PROTOBUF_C_MESSAGE_INIT(&sw_wire__task_event__descriptor),
                                   .type = SW_WIRE__TASK_EVENT__TYPE__FAILED, .task = &red3,
                                   .error = "fetch from 127.0.0.3:7070: checksum mismatch"};
static SwWire__TaskEvent *events[] = {&started, &finished, &failed};
static SwWire__TaskRef *running[] = {&red3};
static SwWire__FetchFailure fetch_failure = {
        PROTOBUF_C_MESSAGE_INIT(&sw_wire__fetch_failure__descriptor),
        .reduce = &red3,
        .map = 7,
        .map_attempt = 1,
        .server = "127.0.0.2:7070",
        .error = "timed out"};
static SwWire__FetchFailure *fetch_failures[] = {&fetch_failure};
static SwWire__Heartbeat heartbeat = {PROTOBUF_C_MESSAGE_INIT(&sw_wire__heartbeat__descriptor),
                                      .free_map_slots = 1,
                                      .free_reduce_slots = 2,
                                      .n_netsat = 2,
                                      .netsat = netsat,
                                      .n_events = 3,
                                      .events = events,
                                      .n_running = 1,
                                      .running = running,
                                      .running_listed = 1,
                                      .n_fetch_failures = 1,
                                      .fetch_failures = fetch_failures};

static char *replicas[] = {"127.0.0.3:7070", "127.0.0.4:7070"};
static SwWire__Synthetic synth = {PROTOBUF_C_MESSAGE_INIT(&sw_wire__synthetic__descriptor),
                                  .input_bytes = 64 << 20,
                                  .compute_bytes_per_s = 1.5e8,
                                  .output_bytes = 32 << 20,
                                  .n_replica_addrs = 2,
                                  .replica_addrs = replicas};
static char *argv[] = {"/bin/sh", "-c", "wc -l"};
static SwWire__Exec exec = {PROTOBUF_C_MESSAGE_INIT(&sw_wire__exec__descriptor), .n_argv = 3,
                            .argv = argv};
static SwWire__MapLocation loc = {PROTOBUF_C_MESSAGE_INIT(&sw_wire__map_location__descriptor),
                                  .map = 7,
                                  .attempt = 1,
                                  .server = "127.0.0.2:7070",
                                  .bytes = 1000,
                                  .crc32c = 0xdeadbeef};
static SwWire__MapLocation *locs[] = {&loc};
static SwWire__Task tmap = {PROTOBUF_C_MESSAGE_INIT(&sw_wire__task__descriptor),
                            .ref = &map7,
                            .runner_case = SW_WIRE__TASK__RUNNER_SYNTHETIC,
                            .synthetic = &synth,
                            .shuffle_secret = {sizeof(secret), secret},
                            .job_maps = 8,
                            .job_reduces = 2};
static SwWire__Task tred = {PROTOBUF_C_MESSAGE_INIT(&sw_wire__task__descriptor),
                            .ref = &red3,
                            .runner_case = SW_WIRE__TASK__RUNNER_EXEC,
                            .exec = &exec,
                            .shuffle_secret = {sizeof(secret), secret},
                            .job_maps = 8,
                            .job_reduces = 2,
                            .n_maps = 1,
                            .maps = locs};
static SwWire__Task *tasks[] = {&tmap, &tred};
static SwWire__Assign assign = {PROTOBUF_C_MESSAGE_INIT(&sw_wire__assign__descriptor), .n_tasks = 2,
                                .tasks = tasks};
static SwWire__MapOutputs outputs = {PROTOBUF_C_MESSAGE_INIT(&sw_wire__map_outputs__descriptor),
                                     .reduce = &red3, .n_maps = 1, .maps = locs};
static SwWire__KillTask kill = {PROTOBUF_C_MESSAGE_INIT(&sw_wire__kill_task__descriptor),
                                .task = &map7, .reason = "job removed"};
static SwWire__JobDone done = {PROTOBUF_C_MESSAGE_INIT(&sw_wire__job_done__descriptor), .job = 42};
static char *rack_hosts[] = {"10.1.0.11", "10.1.0.12"};
static SwWire__Pace pace = {PROTOBUF_C_MESSAGE_INIT(&sw_wire__pace__descriptor),
                            .bytes_per_s = 5625000, .n_rack_hosts = 2, .rack_hosts = rack_hosts};

const ProtobufCMessage *wire_sample(enum sw_wire_type type)
{
	static const ProtobufCMessage *const all[SW_WIRE_TYPES] = {
	        [SW_WIRE_HELLO] = &hello.base,     [SW_WIRE_CHALLENGE] = &challenge.base,
	        [SW_WIRE_AUTH] = &auth.base,       [SW_WIRE_WELCOME] = &welcome.base,
	        [SW_WIRE_REFUSED] = &refused.base, [SW_WIRE_HEARTBEAT] = &heartbeat.base,
	        [SW_WIRE_ASSIGN] = &assign.base,   [SW_WIRE_MAP_OUTPUTS] = &outputs.base,
	        [SW_WIRE_KILL_TASK] = &kill.base,  [SW_WIRE_JOB_DONE] = &done.base,
	        [SW_WIRE_PACE] = &pace.base,
	};
	return all[type];
}
