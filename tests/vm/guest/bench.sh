# bench.sh - exec/open-heavy workloads with no module, with slim.ko, and
# with mainline IMA (the tcb rules written to its policy file), in one boot.
# Prints "@@BENCH <config> <workload> <milliseconds>".
. /vm/common.sh
ITER=${ITER:-400}

# busybox date has no %N: /proc/uptime, in centiseconds
now_ms() {
	t=$(cut -d' ' -f1 /proc/uptime | tr -d .)
	echo $((${t#0} * 10))
}

mkdir -p /root/b/p
cp /bin/busybox /root/b/p/true
for i in 1 2 3 4 5 6 7 8; do echo "file $i" >/root/b/f$i; done

# exec a program and open files whose measurements are cached
w_cached() {
	i=0
	while [ $i -lt $ITER ]; do
		/root/b/p/true
		cat /root/b/f1 /root/b/f2 /root/b/f3 /root/b/f4 \
			/root/b/f5 /root/b/f6 /root/b/f7 /root/b/f8 >/dev/null
		i=$((i + 1))
	done
}

# every iteration reads new content: each read is hashed and extended
w_new() {
	i=0
	while [ $i -lt $((ITER / 2)) ]; do
		echo "content $i $1" >/root/b/n
		cat /root/b/n >/dev/null
		i=$((i + 1))
	done
}

# pipes: the shell's read takes one byte per read(2), so this is about
# 40,000 small pipe reads and writes (the lattice's pipe rules and return
# probe on each), then 16 MiB in large reads
w_pipe() {
	seq 1 $((ITER * 20)) | while read -r l; do :; done
	head -c 16777216 /dev/zero | cat >/dev/null
}

measure() {
	t0=$(now_ms)
	w_cached
	t1=$(now_ms)
	w_new "$1-$2"
	t2=$(now_ms)
	w_pipe
	t3=$(now_ms)
	echo "@@BENCH $1 cached $((t1 - t0))"
	echo "@@BENCH $1 new $((t2 - t1))"
	echo "@@BENCH $1 pipe $((t3 - t2))"
}

# none and slim alternate so that drift in the emulator hits both alike;
# IMA comes last because its policy cannot be removed again
w_cached
w_new warm
for rep in 1 2 3 4 5; do
	measure none $rep
	insmod /lib/slim.ko lock=0 mode=enforce || echo "@@BENCH-ERROR insmod"
	w_cached
	measure slim $rep
	echo "@@BENCH-INFO slim entries $(count) violations $(violations)"
	rmmod slim || echo "@@BENCH-ERROR rmmod"
done
cat >/sys/kernel/security/ima/policy <<'POL' || echo "@@BENCH-ERROR ima policy"
dont_measure fsmagic=0x9fa0
dont_measure fsmagic=0x62656572
dont_measure fsmagic=0x64626720
dont_measure fsmagic=0x1021994
dont_measure fsmagic=0x1cd1
dont_measure fsmagic=0x42494e4d
dont_measure fsmagic=0x73636673
dont_measure fsmagic=0xf97cff8c
dont_measure fsmagic=0x43415d53
dont_measure fsmagic=0x27e0eb
dont_measure fsmagic=0x63677270
dont_measure fsmagic=0x6e736673
dont_measure fsmagic=0xde5e81e4
measure func=MMAP_CHECK mask=MAY_EXEC
measure func=BPRM_CHECK mask=MAY_EXEC
measure func=FILE_CHECK mask=^MAY_READ euid=0
measure func=FILE_CHECK mask=^MAY_READ uid=0
measure func=MODULE_CHECK uid=0
measure func=FIRMWARE_CHECK
measure func=POLICY_CHECK
POL
w_cached
for rep in 1 2 3 4 5; do
	measure ima $rep
done
echo "@@BENCH-INFO ima entries $(cat /sys/kernel/security/ima/runtime_measurements_count)"
