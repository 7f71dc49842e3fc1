// SPDX-License-Identifier: GPL-2.0
/*
 * denied-open FILE: restrict this process with Landlock so that no file may
 * be opened for reading, then open FILE. Landlock denies the open in its
 * file_open hook, after security_file_open() was entered: the struct file
 * the measurement hook saw is torn down half-opened. Exit 0 when the open
 * was denied with EACCES, 1 when it was not, 2 when Landlock is missing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/landlock.h>

int main(int argc, char **argv)
{
	struct landlock_ruleset_attr attr = {
		.handled_access_fs = LANDLOCK_ACCESS_FS_READ_FILE,
	};
	int rs, fd;

	if (argc != 2)
		return 2;
	rs = syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (rs < 0) {
		perror("landlock_create_ruleset");
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_landlock_restrict_self, rs, 0)) {
		perror("landlock_restrict_self");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd >= 0) {
		printf("open of %s was not denied\n", argv[1]);
		return 1;
	}
	printf("open of %s denied: errno %d\n", argv[1], errno);
	return errno == EACCES ? 0 : 1;
}
