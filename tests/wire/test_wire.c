/* SPDX-License-Identifier: MIT */
/*
 * The wire protocol: every message round-trips (through the codec and over a real tcp
 * connection on loopback), the handshake accepts the right key and nothing else, oversized
 * and malformed messages are refused with an error naming the message, and key files are
 * made and loaded only with owner-only permissions.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "samples.h"
#include "sw_wire.h"

static char err[SW_WIRE_ERRLEN];

/* Encodes the sample of type; the caller frees *buf. */
static size_t encode_sample(enum sw_wire_type type, void **buf)
{
	size_t len;
	assert_int_equal(sw_wire_encode(type, wire_sample(type), buf, &len, err, sizeof(err)), 0);
	return len;
}

/* Decoding bytes and encoding the result again gives the same bytes. */
static void assert_decodes_to_same(enum sw_wire_type type, const void *buf, size_t len)
{
	struct sw_wire_msg m;
	void *again;
	size_t len2;
	assert_int_equal(sw_wire_decode(type, buf, len, &m, err, sizeof(err)), 0);
	assert_int_equal(m.type, type);
	assert_int_equal(sw_wire_encode(type, m.base, &again, &len2, err, sizeof(err)), 0);
	assert_int_equal(len2, len);
	assert_memory_equal(again, buf, len);
	free(again);
	sw_wire_msg_free(&m);
}

static void every_message_round_trips_through_the_codec(void **state)
{
	(void)state;
	for (int t = SW_WIRE_HELLO; t < SW_WIRE_TYPES; t++) {
		void *buf;
		size_t len = encode_sample(t, &buf);
		assert_true(len > 0);
		assert_decodes_to_same(t, buf, len);
		free(buf);
	}
}

static void decoded_messages_keep_field_values(void **state)
{
	(void)state;
	void *buf;
	size_t len = encode_sample(SW_WIRE_HEARTBEAT, &buf);
	struct sw_wire_msg m;
	assert_int_equal(sw_wire_decode(SW_WIRE_HEARTBEAT, buf, len, &m, err, sizeof(err)), 0);
	const SwWire__Heartbeat *hb = m.heartbeat;
	assert_int_equal(hb->n_events, 3);
	assert_int_equal(hb->events[1]->type, SW_WIRE__TASK_EVENT__TYPE__FINISHED);
	assert_int_equal(hb->events[1]->task->job, 42);
	assert_int_equal(hb->events[1]->partitions[0]->crc32c, 0xdeadbeef);
	assert_true(hb->netsat[0]->rx_bytes == 1ull << 40);
	assert_string_equal(hb->events[2]->error, "fetch from 127.0.0.3:7070: checksum mismatch");
	assert_int_equal(hb->n_fetch_failures, 1);
	assert_int_equal(hb->fetch_failures[0]->reduce->task, 3);
	assert_int_equal(hb->fetch_failures[0]->map, 7);
	assert_int_equal(hb->fetch_failures[0]->map_attempt, 1);
	assert_string_equal(hb->fetch_failures[0]->server, "127.0.0.2:7070");
	sw_wire_msg_free(&m);
	free(buf);
}

static int sends_done; /* SW_DP_EV_SEND events seen by pump() */

/* Returns true once every send of the test completed (their buffers are freed). */
static int all_sent(struct sw_dp_ctx *ctx, void *arg)
{
	(void)ctx;
	return sends_done == *(int *)arg;
}

/* Runs both contexts until fn(arg) says done; fails the test after many idle rounds. */
static void pump(struct sw_dp_ctx *a, struct sw_dp_ctx *b, int (*fn)(struct sw_dp_ctx *, void *),
                 void *arg)
{
	for (int idle = 0; idle < 20000;) {
		if (fn(b, arg))
			return;
		struct sw_dp_event ev[8];
		int n = sw_dp_poll(a, ev, 8);
		assert_true(n >= 0);
		for (int i = 0; i < n; i++)
			if (ev[i].type == SW_DP_EV_SEND) {
				sw_wire_sent(&ev[i]);
				sends_done++;
			}
		idle = n > 0 ? 0 : idle + 1;
		if (n == 0)
			sw_dp_wait(b, 1);
	}
	fail_msg("no progress");
}

struct server {
	struct sw_dp_event ev;
	int have;
};

/* Takes the next event that is not an accept into srv->ev. */
static int next_event(struct sw_dp_ctx *ctx, void *arg)
{
	struct server *srv = arg;
	if (srv->have)
		return 1;
	struct sw_dp_event ev;
	while (sw_dp_poll(ctx, &ev, 1) == 1)
		if (ev.type != SW_DP_EV_ACCEPT) {
			srv->ev = ev;
			srv->have = 1;
			return 1;
		}
	return 0;
}

static void open_pair(struct sw_dp_ctx **srv, struct sw_dp_ctx **cli, struct sw_dp_ep **ep,
                      uint64_t client_max_msg)
{
	struct sw_dp_config cfg;
	char addr[SW_DP_ADDRSTRLEN];
	sw_wire_dp_config(&cfg);
	assert_int_equal(sw_dp_open(&cfg, srv), 0);
	assert_int_equal(sw_dp_listen(*srv, "127.0.0.1:0"), 0);
	assert_int_equal(sw_dp_listen_addr(*srv, addr, sizeof(addr)), 0);
	cfg.max_msg = client_max_msg;
	assert_int_equal(sw_dp_open(&cfg, cli), 0);
	assert_int_equal(sw_dp_connect(*cli, addr, ep), 0);
}

static void every_message_round_trips_over_tcp(void **state)
{
	(void)state;
	struct sw_dp_ctx *srv, *cli;
	struct sw_dp_ep *ep;
	open_pair(&srv, &cli, &ep, SW_WIRE_MAX_MSG);
	sends_done = 0;
	for (int t = SW_WIRE_HELLO; t < SW_WIRE_TYPES; t++) {
		assert_int_equal(sw_wire_send(ep, t, wire_sample(t), err, sizeof(err)), 0);
		struct server s = {0};
		pump(cli, srv, next_event, &s);
		assert_int_equal(s.ev.type, SW_DP_EV_RECV);
		assert_true(s.ev.tag == (uint64_t)t);
		void *want;
		size_t len = encode_sample(t, &want);
		assert_int_equal(s.ev.len, len);
		assert_memory_equal(s.ev.data, want, len);
		assert_decodes_to_same(t, s.ev.data, s.ev.len);
		free(want);
		sw_dp_release(srv, &s.ev);
	}
	int sent = SW_WIRE_TYPES - SW_WIRE_HELLO;
	pump(cli, srv, all_sent, &sent);
	sw_dp_close(cli);
	sw_dp_close(srv);
}

static void frame_over_the_limit_closes_the_connection_before_it_is_read(void **state)
{
	(void)state;
	struct sw_dp_ctx *srv, *cli;
	struct sw_dp_ep *ep;
	open_pair(&srv, &cli, &ep, 0); /* the sender allows the dataplane's default 64 MiB */
	size_t len = SW_WIRE_MAX_MSG + 1;
	void *big = calloc(1, len);
	assert_non_null(big);
	struct iovec iov = {big, len};
	assert_int_equal(sw_dp_send(ep, SW_WIRE_HEARTBEAT, &iov, 1, NULL), 0);
	struct server s = {0};
	pump(cli, srv, next_event, &s);
	assert_int_equal(s.ev.type, SW_DP_EV_CLOSED);
	assert_int_equal(s.ev.status, -EMSGSIZE);
	sw_dp_close(cli);
	sw_dp_close(srv);
	free(big);
}

static void oversized_message_is_refused_naming_the_message(void **state)
{
	(void)state;
	struct sw_wire_msg m;
	uint8_t byte = 0;
	assert_int_equal(
	        sw_wire_decode(SW_WIRE_HEARTBEAT, &byte, SW_WIRE_MAX_MSG + 1, &m, err, sizeof(err)),
	        -EMSGSIZE);
	assert_non_null(strstr(err, "Heartbeat of 1048577 bytes is over the limit"));

	/* A heartbeat whose events take more than the limit cannot be encoded either. */
	static char reason[600 * 1024];
	memset(reason, 'x', sizeof(reason) - 1);
	SwWire__TaskRef ref = SW_WIRE__TASK_REF__INIT;
	SwWire__TaskEvent ev = SW_WIRE__TASK_EVENT__INIT;
	ev.task = &ref;
	ev.type = SW_WIRE__TASK_EVENT__TYPE__FAILED;
	ev.error = reason;
	SwWire__TaskEvent *evs[] = {&ev, &ev};
	SwWire__Heartbeat hb = SW_WIRE__HEARTBEAT__INIT;
	hb.n_events = 2;
	hb.events = evs;
	void *buf;
	size_t len;
	assert_int_equal(sw_wire_encode(SW_WIRE_HEARTBEAT, &hb.base, &buf, &len, err, sizeof(err)),
	                 -EMSGSIZE);
	assert_non_null(strstr(err, "Heartbeat of"));
}

static void malformed_bytes_are_refused_naming_the_message(void **state)
{
	(void)state;
	struct sw_wire_msg m;
	const uint8_t junk[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
	assert_int_equal(sw_wire_decode(SW_WIRE_ASSIGN, junk, sizeof(junk), &m, err, sizeof(err)),
	                 -EPROTO);
	assert_string_equal(err, "malformed Assign (11 bytes)");
	assert_null(m.base);

	/* A valid message cut short. */
	void *buf;
	size_t len = encode_sample(SW_WIRE_ASSIGN, &buf);
	assert_int_equal(sw_wire_decode(SW_WIRE_ASSIGN, buf, len - 3, &m, err, sizeof(err)),
	                 -EPROTO);
	assert_non_null(strstr(err, "malformed Assign"));
	free(buf);
}

static void unknown_message_type_is_refused(void **state)
{
	(void)state;
	struct sw_wire_msg m;
	assert_int_equal(sw_wire_decode(0, "", 0, &m, err, sizeof(err)), -EPROTO);
	assert_string_equal(err, "unknown message type 0 (0 bytes)");
	assert_int_equal(sw_wire_decode(SW_WIRE_TYPES, "", 0, &m, err, sizeof(err)), -EPROTO);
	assert_string_equal(sw_wire_type_name(SW_WIRE_TYPES), "unknown");
	assert_string_equal(sw_wire_type_name(SW_WIRE_KILL_TASK), "KillTask");
}

/* Encodes msg as type and expects decoding to refuse it with an error containing what. */
static void assert_invalid(enum sw_wire_type type, const ProtobufCMessage *msg, const char *what)
{
	void *buf;
	size_t len;
	struct sw_wire_msg m;
	assert_int_equal(sw_wire_encode(type, msg, &buf, &len, err, sizeof(err)), 0);
	assert_int_equal(sw_wire_decode(type, buf, len, &m, err, sizeof(err)), -EPROTO);
	if (strstr(err, what) == NULL)
		fail_msg("error \"%s\" does not contain \"%s\"", err, what);
	free(buf);
}

static void messages_consumers_cannot_use_are_refused(void **state)
{
	(void)state;
	SwWire__Hello hello = *(const SwWire__Hello *)wire_sample(SW_WIRE_HELLO);
	hello.node_id = "r1n2/../../etc";
	assert_invalid(SW_WIRE_HELLO, &hello.base, "invalid Hello: node_id");
	hello.node_id = "";
	assert_invalid(SW_WIRE_HELLO, &hello.base, "invalid Hello: node_id");
	hello.node_id = "r1n2";
	hello.agent_nonce.len = 8;
	assert_invalid(SW_WIRE_HELLO, &hello.base, "agent_nonce is 8 bytes, not 32");

	SwWire__Auth auth = SW_WIRE__AUTH__INIT;
	assert_invalid(SW_WIRE_AUTH, &auth.base, "invalid Auth: mac is 0 bytes");
	auth = *(const SwWire__Auth *)wire_sample(SW_WIRE_AUTH);
	SwWire__HeldOutput h0 = SW_WIRE__HELD_OUTPUT__INIT, h1 = h0;
	SwWire__HeldOutput *held[] = {&h0, &h1};
	h0.job = h1.job = 5;
	h0.map = h1.map = 3; /* twice */
	auth.n_held = 2;
	auth.held = held;
	assert_invalid(SW_WIRE_AUTH, &auth.base, "invalid Auth: held[1] is not after held[0]");
	h0.job = 6; /* out of order */
	assert_invalid(SW_WIRE_AUTH, &auth.base, "invalid Auth: held[1] is not after held[0]");
	auth.n_held = SW_WIRE_MAX_HELD + 1;
	auth.held = calloc(auth.n_held, sizeof(*auth.held));
	assert_non_null(auth.held);
	for (size_t i = 0; i < auth.n_held; i++)
		auth.held[i] = &h1;
	assert_invalid(SW_WIRE_AUTH, &auth.base, "invalid Auth: 32769 held outputs, more than");
	free(auth.held);

	SwWire__TaskEvent ev = SW_WIRE__TASK_EVENT__INIT; /* no task */
	SwWire__TaskEvent *evs[] = {&ev};
	SwWire__Heartbeat hb = SW_WIRE__HEARTBEAT__INIT;
	hb.n_events = 1;
	hb.events = evs;
	assert_invalid(SW_WIRE_HEARTBEAT, &hb.base, "invalid Heartbeat: events[0]");
	SwWire__TaskRef ref = SW_WIRE__TASK_REF__INIT;
	ref.kind = 7;
	ev.task = &ref;
	assert_invalid(SW_WIRE_HEARTBEAT, &hb.base, "invalid Heartbeat: events[0]");

	SwWire__FetchFailure ff = SW_WIRE__FETCH_FAILURE__INIT; /* no reduce */
	SwWire__FetchFailure *ffs[] = {&ff};
	SwWire__Heartbeat hb2 = SW_WIRE__HEARTBEAT__INIT;
	hb2.n_fetch_failures = 1;
	hb2.fetch_failures = ffs;
	assert_invalid(SW_WIRE_HEARTBEAT, &hb2.base, "invalid Heartbeat: fetch_failures[0]");
	ref.kind = SW_WIRE__TASK_KIND__MAP;
	ff.reduce = &ref; /* a map */
	assert_invalid(SW_WIRE_HEARTBEAT, &hb2.base, "invalid Heartbeat: fetch_failures[0]");

	SwWire__Task task = SW_WIRE__TASK__INIT; /* no runner */
	task.ref = &ref;
	SwWire__Task *tasks[] = {&task};
	SwWire__Assign as = SW_WIRE__ASSIGN__INIT;
	as.n_tasks = 1;
	as.tasks = tasks;
	assert_invalid(SW_WIRE_ASSIGN, &as.base, "invalid Assign: tasks[0]");

	SwWire__MapOutputs mo = SW_WIRE__MAP_OUTPUTS__INIT;
	mo.reduce = &ref; /* a map */
	assert_invalid(SW_WIRE_MAP_OUTPUTS, &mo.base, "invalid MapOutputs: reduce");

	SwWire__KillTask kill = SW_WIRE__KILL_TASK__INIT;
	assert_invalid(SW_WIRE_KILL_TASK, &kill.base, "invalid KillTask: no task");
}

static void encoding_a_message_as_another_type_is_refused(void **state)
{
	(void)state;
	void *buf;
	size_t len;
	assert_int_equal(sw_wire_encode(SW_WIRE_AUTH, wire_sample(SW_WIRE_HELLO), &buf, &len, err,
	                                sizeof(err)),
	                 -EINVAL);
	assert_string_equal(err, "message is not a Auth");
}

static const struct sw_wire_key key = {{1, 2, 3, 4, 5}}, other = {{1, 2, 3, 4, 6}};

/* Both sides of one handshake; the messages point into the sides' state. */
struct pair {
	struct sw_wire_handshake agent, ctl;
	SwWire__Hello hello;
	SwWire__Challenge ch;
	SwWire__Auth auth;
};

/* Agent r0n1 says Hello, the controller holding ckey answers with its Challenge. */
static void start(struct pair *p, const struct sw_wire_key *ckey)
{
	*p = (struct pair){.hello = SW_WIRE__HELLO__INIT,
	                   .ch = SW_WIRE__CHALLENGE__INIT,
	                   .auth = SW_WIRE__AUTH__INIT};
	assert_int_equal(sw_wire_hello_init(&p->agent, "r0n1", &p->hello), 0);
	assert_int_equal(sw_wire_challenge_make(&p->ctl, ckey, &p->hello, &p->ch), 0);
}

/* Runs the handshake: the agent holds akey, the controller ckey. Returns the first failure:
 * the agent's check of the challenge, then the controller's check of the auth. */
static int handshake(const struct sw_wire_key *akey, const struct sw_wire_key *ckey,
                     void (*tamper)(SwWire__Challenge *, SwWire__Auth *))
{
	struct pair p;
	start(&p, ckey);
	if (tamper)
		tamper(&p.ch, NULL);
	int rc = sw_wire_challenge_answer(&p.agent, akey, &p.ch, &p.auth);
	if (rc < 0)
		return rc;
	if (tamper)
		tamper(NULL, &p.auth);
	return sw_wire_auth_check(&p.ctl, ckey, &p.auth);
}

static void handshake_with_the_cluster_key_succeeds(void **state)
{
	(void)state;
	assert_int_equal(handshake(&key, &key, NULL), 0);
}

static void agent_with_a_wrong_key_is_refused_by_the_controller(void **state)
{
	(void)state;
	struct pair p;
	start(&p, &key);
	/* An agent holding another key fails the controller's proof, and cannot pass its own
	 * check by reflecting the controller's proof back. */
	assert_int_equal(sw_wire_challenge_answer(&p.agent, &other, &p.ch, &p.auth), -EACCES);
	p.auth.mac = p.ch.mac;
	assert_int_equal(sw_wire_auth_check(&p.ctl, &key, &p.auth), -EACCES);
}

static void controller_with_a_wrong_key_is_refused_by_the_agent(void **state)
{
	(void)state;
	assert_int_equal(handshake(&key, &other, NULL), -EACCES);
}

static void flip_challenge_mac(SwWire__Challenge *ch, SwWire__Auth *auth)
{
	(void)auth;
	if (ch)
		ch->mac.data[5] ^= 1;
}

static void flip_auth_mac(SwWire__Challenge *ch, SwWire__Auth *auth)
{
	(void)ch;
	if (auth)
		auth->mac.data[31] ^= 0x80;
}

static void flip_controller_nonce(SwWire__Challenge *ch, SwWire__Auth *auth)
{
	(void)auth;
	if (ch)
		ch->controller_nonce.data[0] ^= 1;
}

static void tampered_macs_and_nonces_are_refused(void **state)
{
	(void)state;
	assert_int_equal(handshake(&key, &key, flip_challenge_mac), -EACCES);
	assert_int_equal(handshake(&key, &key, flip_auth_mac), -EACCES);
	assert_int_equal(handshake(&key, &key, flip_controller_nonce), -EACCES);
}

static void proof_made_for_one_node_id_fails_for_another(void **state)
{
	(void)state;
	struct pair p;
	start(&p, &key);
	assert_int_equal(sw_wire_challenge_answer(&p.agent, &key, &p.ch, &p.auth), 0);
	strcpy(p.ctl.node_id, "r0n2");
	assert_int_equal(sw_wire_auth_check(&p.ctl, &key, &p.auth), -EACCES);
}

static void hello_of_another_version_is_refused(void **state)
{
	(void)state;
	struct sw_wire_handshake agent, ctl;
	SwWire__Hello hello = SW_WIRE__HELLO__INIT;
	SwWire__Challenge ch = SW_WIRE__CHALLENGE__INIT;
	assert_int_equal(sw_wire_hello_init(&agent, "r0n1", &hello), 0);
	hello.version = SW_WIRE_VERSION + 1;
	assert_int_equal(sw_wire_challenge_make(&ctl, &key, &hello, &ch), -EPROTONOSUPPORT);
	assert_int_equal(sw_wire_hello_init(&agent, "bad id", &hello), -EINVAL);
}

static char dir[] = "/tmp/sw-wire-test-XXXXXX";

static const char *path_in_dir(const char *name)
{
	static char path[128];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static void generated_key_is_owner_only_and_loads(void **state)
{
	(void)state;
	const char *p = path_in_dir("cluster.key");
	struct sw_wire_key a, b;
	struct stat st;
	assert_int_equal(sw_wire_key_generate(p, err, sizeof(err)), 0);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(st.st_size, 2 * SW_WIRE_KEY_LEN + 1);
	assert_int_equal(sw_wire_key_load(p, &a, err, sizeof(err)), 0);
	assert_int_equal(sw_wire_key_load(p, &b, err, sizeof(err)), 0);
	assert_memory_equal(a.bytes, b.bytes, SW_WIRE_KEY_LEN);
	assert_int_equal(sw_wire_key_generate(p, err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "not overwritten"));
	assert_int_equal(sw_wire_key_load(p, &b, err, sizeof(err)), 0);
	assert_memory_equal(a.bytes, b.bytes, SW_WIRE_KEY_LEN);
	unlink(p);
}

static void key_file_others_can_read_is_refused(void **state)
{
	(void)state;
	const char *p = path_in_dir("loose.key");
	struct sw_wire_key k;
	assert_int_equal(sw_wire_key_generate(p, err, sizeof(err)), 0);
	assert_int_equal(chmod(p, 0640), 0);
	assert_int_equal(sw_wire_key_load(p, &k, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "mode 0640"));
	assert_non_null(strstr(err, "chmod 600"));
	assert_int_equal(chmod(p, 0604), 0);
	assert_int_equal(sw_wire_key_load(p, &k, err, sizeof(err)), -EPERM);
	unlink(p);
}

static void missing_or_malformed_key_file_is_refused(void **state)
{
	(void)state;
	struct sw_wire_key k;
	assert_int_equal(sw_wire_key_load(path_in_dir("none.key"), &k, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "none.key"));
	const char *bad[] = {
	        "", "abcd\n", "zz3bd8e674eab4923005158ea31ad8d492b619490b1b22497ffb20c31d029866\n",
	        "63bbd8e674eab4923005158ea31ad8d492b619490b1b22497ffb20c31d02986611\n"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *p = path_in_dir("bad.key");
		FILE *f = fopen(p, "w");
		assert_non_null(f);
		fputs(bad[i], f);
		fclose(f);
		assert_int_equal(chmod(p, 0600), 0);
		assert_int_equal(sw_wire_key_load(p, &k, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "not a key"));
		unlink(p);
	}
}

static int make_dir(void **state)
{
	(void)state;
	return mkdtemp(dir) == NULL;
}

static int remove_dir(void **state)
{
	(void)state;
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(every_message_round_trips_through_the_codec),
	        cmocka_unit_test(decoded_messages_keep_field_values),
	        cmocka_unit_test(every_message_round_trips_over_tcp),
	        cmocka_unit_test(frame_over_the_limit_closes_the_connection_before_it_is_read),
	        cmocka_unit_test(oversized_message_is_refused_naming_the_message),
	        cmocka_unit_test(malformed_bytes_are_refused_naming_the_message),
	        cmocka_unit_test(unknown_message_type_is_refused),
	        cmocka_unit_test(messages_consumers_cannot_use_are_refused),
	        cmocka_unit_test(encoding_a_message_as_another_type_is_refused),
	        cmocka_unit_test(handshake_with_the_cluster_key_succeeds),
	        cmocka_unit_test(agent_with_a_wrong_key_is_refused_by_the_controller),
	        cmocka_unit_test(controller_with_a_wrong_key_is_refused_by_the_agent),
	        cmocka_unit_test(tampered_macs_and_nonces_are_refused),
	        cmocka_unit_test(proof_made_for_one_node_id_fails_for_another),
	        cmocka_unit_test(hello_of_another_version_is_refused),
	        cmocka_unit_test(generated_key_is_owner_only_and_loads),
	        cmocka_unit_test(key_file_others_can_read_is_refused),
	        cmocka_unit_test(missing_or_malformed_key_file_is_refused),
	};
	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
