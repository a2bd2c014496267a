/* SPDX-License-Identifier: MIT */
/* When a context spins before it sleeps (dataplane/spin.h): the backoff after spins that
 * found nothing, and its end at one that found work. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "spin.h"

#define TICKS_PER_US 1000ull

/* How many of the next n waits spin (each that spins runs out when @p missing). */
static int spins_in(struct dp_spin *s, int n, bool missing)
{
	int spun = 0;

	for (int i = 0; i < n; i++)
		if (sw_dp_spin_now(s)) {
			spun++;
			if (missing)
				sw_dp_spin_missed(s);
			else
				sw_dp_spin_hit(s);
		}
	return spun;
}

static void every_wait_spins_while_spins_find_their_answer(void **state)
{
	struct dp_spin s;

	(void)state;
	sw_dp_spin_init(&s, TICKS_PER_US, 50);
	assert_int_equal(s.ticks, 50 * TICKS_PER_US);
	assert_int_equal(spins_in(&s, 100, false), 100);
}

static void spins_that_run_out_leave_1_2_4_then_8_waits_sleeping_at_once(void **state)
{
	struct dp_spin s;
	int gaps[6], n = 0, since = 0;

	(void)state;
	sw_dp_spin_init(&s, TICKS_PER_US, 50);
	while (n < 6) {
		if (sw_dp_spin_now(&s)) {
			sw_dp_spin_missed(&s);
			gaps[n++] = since;
			since = 0;
		} else {
			since++;
		}
	}
	assert_int_equal(gaps[0], 0);
	assert_int_equal(gaps[1], 0); /* the first miss skips one wait: the next one's turn */
	assert_int_equal(gaps[2], 1);
	assert_int_equal(gaps[3], 3);
	assert_int_equal(gaps[4], 7);
	assert_int_equal(gaps[5], 7); /* at most 1 in 8 waits spins for nothing */
}

static void a_spin_that_finds_its_answer_ends_the_backoff(void **state)
{
	struct dp_spin s;

	(void)state;
	sw_dp_spin_init(&s, TICKS_PER_US, 50);
	assert_int_equal(spins_in(&s, 64, true), 11); /* waits 1, 2, 4, 8, 16, 24, ... 64 */
	assert_int_equal(spins_in(&s, 8, false), 1);  /* the next spin finds it */
	assert_int_equal(spins_in(&s, 20, false), 20);
}

static void the_environment_sets_the_spin_where_it_names_one_and_0_turns_it_off(void **state)
{
	struct dp_spin s;

	(void)state;
	assert_int_equal(unsetenv("SW_TEST_SPIN_US"), 0);
	assert_int_equal(sw_dp_spin_env_us("SW_TEST_SPIN_US", 50), 50);
	assert_int_equal(setenv("SW_TEST_SPIN_US", "200", 1), 0);
	assert_int_equal(sw_dp_spin_env_us("SW_TEST_SPIN_US", 50), 200);
	assert_int_equal(setenv("SW_TEST_SPIN_US", "0", 1), 0);
	sw_dp_spin_init(&s, TICKS_PER_US, sw_dp_spin_env_us("SW_TEST_SPIN_US", 50));
	assert_int_equal(spins_in(&s, 10, false), 0);
	assert_int_equal(unsetenv("SW_TEST_SPIN_US"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(every_wait_spins_while_spins_find_their_answer),
	        cmocka_unit_test(spins_that_run_out_leave_1_2_4_then_8_waits_sleeping_at_once),
	        cmocka_unit_test(a_spin_that_finds_its_answer_ends_the_backoff),
	        cmocka_unit_test(
	                the_environment_sets_the_spin_where_it_names_one_and_0_turns_it_off),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
