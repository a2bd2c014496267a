/* SPDX-License-Identifier: MIT */
/*
 * Runner "exec": runs the task's program (argv, looked up in PATH) in its own session (so a kill
 * reaches everything it started), stdin from /dev/null, stdout and stderr to per-attempt log
 * files under data_dir/logs, SW_JOB, SW_TASK, SW_KIND, SW_ATTEMPT and SW_NODE in its
 * environment; the agent learns of its end through a pidfd in its loop. Exit status 127 means
 * the program was not found (as in the shell).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent_int.h"

extern char **environ;

struct exec_task {
	struct sw_agent_watch w; /* the child's pidfd */
	struct sw_agent_task *t;
	pid_t pid;
	char log[PATH_MAX + 96]; /* path of the logs, without ".out" and ".err" */
};

static int open_log(const char *base, const char *ext)
{
	char path[PATH_MAX + 104];
	snprintf(path, sizeof(path), "%s.%s", base, ext);
	return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
}

/* environ plus the task's identity, built before fork: setenv is not safe after it. */
static char **task_env(const struct sw_agent_task *t, char vars[5][96])
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + 6, sizeof(char *));
	if (!env)
		return NULL;
	memcpy(env, environ, n * sizeof(char *));
	snprintf(vars[0], 96, "SW_JOB=%llu", (unsigned long long)t->spec.job);
	snprintf(vars[1], 96, "SW_TASK=%u", t->spec.task);
	snprintf(vars[2], 96, "SW_KIND=%s", t->spec.kind == SW_AGENT_MAP ? "map" : "reduce");
	snprintf(vars[3], 96, "SW_ATTEMPT=%u", t->spec.attempt);
	snprintf(vars[4], 96, "SW_NODE=%s", t->ag->conf.node_id);
	for (int i = 0; i < 5; i++)
		env[n + (size_t)i] = vars[i];
	return env;
}

static void on_exit_fd(struct sw_agent_watch *w, uint32_t events)
{
	(void)events;
	struct exec_task *x = container_of(w, struct exec_task, w);
	int st;
	if (waitpid(x->pid, &st, WNOHANG) <= 0)
		return;
	x->pid = 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		sw_agent_task_end(x->t, SW_AGENT_SUCCEEDED, NULL, NULL);
	else if (WIFEXITED(st))
		sw_agent_task_end(x->t, SW_AGENT_FAILED, NULL, "exit status %d (stderr in %s.err)",
		                  WEXITSTATUS(st), x->log);
	else
		sw_agent_task_end(x->t, SW_AGENT_FAILED, NULL, "killed by signal %d (%s)",
		                  WTERMSIG(st), strsignal(WTERMSIG(st)));
}

static int exec_start(struct sw_agent_task *t)
{
	struct sw_agent *ag = t->ag;
	if (!t->spec.argc || !*t->spec.argv[0])
		return -EINVAL;
	struct exec_task *x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->t = t;
	x->w.fd = -1;
	x->w.fn = on_exit_fd;
	snprintf(x->log, sizeof(x->log), "%s/logs/job-%llu.%s-%u.attempt-%u", ag->conf.data_dir,
	         (unsigned long long)t->spec.job, t->spec.kind == SW_AGENT_MAP ? "map" : "reduce",
	         t->spec.task, t->spec.attempt);
	char vars[5][96];
	char **env = task_env(t, vars);
	int out = open_log(x->log, "out"), err = open_log(x->log, "err");
	int rc = 0;
	if (!env || out < 0 || err < 0) {
		rc = env ? -errno : -ENOMEM;
		sw_agent_log(ag, "exec: cannot open %s.out/.err: %s", x->log, strerror(-rc));
		goto out;
	}
	pid_t pid = fork();
	if (pid < 0) {
		rc = -errno;
		goto out;
	}
	if (pid == 0) {
		/* the agent blocks SIGTERM/SIGINT (signalfd) and ignores SIGPIPE: not the task */
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		int null = open("/dev/null", O_RDONLY);
		if (setsid() < 0 || null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 ||
		    dup2(err, 2) < 0)
			_exit(126);
		execvpe(t->argv[0], t->argv, env);
		_exit(127);
	}
	x->pid = pid;
	x->w.fd = (int)syscall(SYS_pidfd_open, pid, 0);
	rc = x->w.fd < 0 ? -errno : sw_agent_watch_add(ag, &x->w);
	if (rc) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
out:
	free(env);
	if (out >= 0)
		close(out);
	if (err >= 0)
		close(err);
	if (rc) {
		if (x->w.fd >= 0)
			close(x->w.fd);
		free(x);
		return rc;
	}
	t->priv = x;
	return 0;
}

static void exec_kill(struct sw_agent_task *t)
{
	struct exec_task *x = t->priv;
	if (!x->pid)
		return;
	/* the whole session (and the child itself, in case it has not called setsid yet);
	 * SIGKILL ends them at once, so waiting here is short */
	kill(-x->pid, SIGKILL);
	kill(x->pid, SIGKILL);
	waitpid(x->pid, NULL, 0);
	x->pid = 0;
}

static void exec_release(struct sw_agent_task *t)
{
	struct exec_task *x = t->priv;
	if (!x)
		return;
	sw_agent_watch_close(t->ag, &x->w);
	free(x);
}

const struct sw_agent_runner sw_agent_runner_exec = {
        .name = "exec",
        .start = exec_start,
        .kill = exec_kill,
        .release = exec_release,
};
