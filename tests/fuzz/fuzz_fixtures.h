/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_fixtures.h - written by tests/fuzz/corpus/make-seeds.py with the seed
 * corpora of fuzz_rest and fuzz_ek_cert (regenerate all three together):
 * the fuzz EK CA, fz-agent's AK (its quote over FZ_NONCE is in the
 * evidence seeds), the fixture whitelists and the PCR values the seeds
 * quote. Test data only.
 */
#ifndef ATTEST_FUZZ_FIXTURES_H
#define ATTEST_FUZZ_FIXTURES_H

#define FZ_NONCE_HEX       "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
#define FZ_NONCE_OLD_HEX   "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
#define FZ_NONCE_OTHER_HEX "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
#define FZ_TOKEN           "fz-token-0123456789abcdef"
#define FZ_TOKEN_OLD       "fz-token-expired"
#define FZ_SECRET_BYTE     0x5e
#define FZ_SEL_JSON        "{\"sha256\":4095}"
#define FZ_LOGS            "ima:10,slim:11"

static const char fz_ek_ca_pem[] =
	"-----BEGIN CERTIFICATE-----\n"
	"MIIBgjCCASigAwIBAgIBATAKBggqhkjOPQQDAjA3MRQwEgYDVQQKDAthdHRlc3Qg\n"
	"ZnV6ejEfMB0GA1UEAwwWYXR0ZXN0IGZ1enogRUsgcm9vdCBDQTAgFw0yMDAxMDEw\n"
	"MDAwMDBaGA85OTk5MTIzMTIzNTk1OVowNzEUMBIGA1UECgwLYXR0ZXN0IGZ1enox\n"
	"HzAdBgNVBAMMFmF0dGVzdCBmdXp6IEVLIHJvb3QgQ0EwWTATBgcqhkjOPQIBBggq\n"
	"hkjOPQMBBwNCAARQ+mlKVug7YcI8YCbRQBYEN6QE3gdVA71CZ3IFmlKW+jCBr/f/\n"
	"QkByNJjleMHhALPgjNlxImhHMWfjIcaH7GQ7oyMwITAPBgNVHRMBAf8EBTADAQH/\n"
	"MA4GA1UdDwEB/wQEAwIBBjAKBggqhkjOPQQDAgNIADBFAiBJ/qu05l+ilHFT2iSp\n"
	"JQmeoObpoKvOXLBkUhwjDw6VyAIhANoH2Nc+N5Od9w57L7/0QSEm8RHMe9ROdC9P\n"
	"sv+PlCA0\n"
	"-----END CERTIFICATE-----\n"	;

static const unsigned char fz_ak_pub[90] = {
	0x00, 0x58, 0x00, 0x23, 0x00, 0x0b, 0x00, 0x05, 0x00, 0x72, 0x00, 0x00,
	0x00, 0x10, 0x00, 0x18, 0x00, 0x0b, 0x00, 0x03, 0x00, 0x10, 0x00, 0x20,
	0x1b, 0xdf, 0x27, 0x88, 0xde, 0x16, 0x40, 0x53, 0x21, 0x87, 0x5a, 0xa0,
	0x64, 0x33, 0x1d, 0x50, 0xcc, 0xd3, 0xca, 0x78, 0x53, 0x18, 0xc8, 0xb5,
	0x62, 0x5a, 0x61, 0x30, 0xd9, 0x26, 0xf8, 0xf9, 0x00, 0x20, 0xca, 0x10,
	0x3b, 0xe6, 0xfd, 0x63, 0x1c, 0xf8, 0x82, 0xfc, 0xec, 0xf2, 0x20, 0x46,
	0x10, 0xac, 0x73, 0x86, 0xd0, 0x67, 0x3e, 0x7d, 0x49, 0x22, 0x6b, 0x48,
	0xfc, 0x88, 0x4a, 0xe7, 0xbb, 0x8a,
};

static const unsigned char fz_other_ak_pub[90] = {
	0x00, 0x58, 0x00, 0x23, 0x00, 0x0b, 0x00, 0x05, 0x00, 0x72, 0x00, 0x00,
	0x00, 0x10, 0x00, 0x18, 0x00, 0x0b, 0x00, 0x03, 0x00, 0x10, 0x00, 0x20,
	0x6b, 0xef, 0xff, 0x01, 0xcb, 0xac, 0x7f, 0xa9, 0xb9, 0x39, 0x3c, 0x20,
	0xc0, 0xfc, 0x5d, 0xa2, 0x0a, 0x3e, 0xb0, 0x14, 0xb5, 0xee, 0x92, 0x6e,
	0x0a, 0x29, 0xf8, 0xce, 0x03, 0x9a, 0xe5, 0xe1, 0x00, 0x20, 0xb5, 0x7a,
	0x31, 0x41, 0xff, 0x97, 0x9a, 0xd4, 0xb2, 0x3c, 0xf7, 0x10, 0x72, 0x38,
	0x2e, 0xe6, 0x56, 0xfa, 0xc8, 0xef, 0x71, 0x6d, 0xee, 0x22, 0x60, 0xb2,
	0x0c, 0x0f, 0x6e, 0xb8, 0x77, 0xb8,
};

static const unsigned char fz_pcr0[32] = {
	0xb8, 0x71, 0x87, 0xdb, 0x71, 0x08, 0x51, 0x6d, 0x3a, 0xe9, 0xf9, 0x97,
	0xdc, 0x0a, 0x42, 0x02, 0x1c, 0x7b, 0xad, 0xc1, 0xc1, 0x8f, 0xc8, 0xb4,
	0x2b, 0xf5, 0x24, 0x65, 0xc6, 0x36, 0xe3, 0x1f,
};

static const char fz_wl_req[] =
	"{\"whitelist\":{\"meta\":{\"version\":1,\"generator\":\"make-seeds.py\"},\"digests\":{\"/usr/bin/fz-a\":[\"ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb\"],\"/usr/lib/fz/libfz.so\":[\"3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d\"],\"/etc/fz.conf\":[\"2e7d2c03a9507ae265ecf5b5356885a53393a2029d241394997265a1a25aefc6\"]},\"ima-buf\":{},\"ima\":{\"ignored_keyrings\":[]}}}\n"	;

static const char fz_legacy_req[] =
	"{\"legacy\":\"ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb  /usr/bin/fz-a\\n3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d  /usr/lib/fz/libfz.so\\n2e7d2c03a9507ae265ecf5b5356885a53393a2029d241394997265a1a25aefc6  /etc/fz.conf\\n\",\"excludes\":\"^/tmp/\\n\"}\n"	;

static const char fz_keylime_req[] =
	"{\"whitelist\":{\"meta\":{\"version\":1,\"generator\":1},\"release\":0,\"digests\":{\"/usr/bin/fz-a\":[\"ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb\"],\"/usr/lib/fz/libfz.so\":[\"3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d\"],\"/etc/fz.conf\":[\"2e7d2c03a9507ae265ecf5b5356885a53393a2029d241394997265a1a25aefc6\"]},\"excludes\":[\"/tmp/.*\"],\"keyrings\":{},\"ima\":{\"ignored_keyrings\":[],\"log_hash_alg\":\"sha1\",\"dm_policy\":null},\"ima-buf\":{},\"verification-keys\":\"\"}}\n"	;

#endif
