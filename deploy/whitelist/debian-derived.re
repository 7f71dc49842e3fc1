# debian-derived.re - files a Debian host makes at install time from what
# its packages ship (maintainer scripts, triggers): no .deb holds them, but
# they are the same on every host installed from the same packages and
# configuration, so they are derived from the golden image:
#   attest-whitelist create --rootfs IMAGE $(sed -n 's/^[^#]/--include &/p' ...)
# One POSIX ERE a line, anchored at the start (create --include).
# ldconfig (libc-bin trigger)
/etc/ld\.so\.cache$
# systemd-hwdb update (udev trigger)
/usr/lib/udev/hwdb\.bin$
# depmod (linux-image postinst, kmod trigger)
/usr/lib/modules/[^/]+/modules\.[a-z.]+$
# pam-auth-update (libpam-runtime postinst)
/etc/pam\.d/common-(auth|account|session|session-noninteractive|password)$
# copies of templates a package ships under /usr/share (base-files, libc-bin,
# kmod, openssh-server via ucf, libpam-modules, tcp wrappers)
/etc/(motd|nsswitch\.conf|modules|environment|hosts\.allow|hosts\.deny)$
/etc/ssh/sshd_config$
/root/\.(bashrc|profile)$
