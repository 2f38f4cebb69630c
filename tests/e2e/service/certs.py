# SPDX-License-Identifier: Apache-2.0
"""Certificates for the TLS tests, made by the openssl command in a test's folder.

make_certs(folder) returns a dict of paths:
  ca, ca_key                 a CA (self-signed, EC P-256)
  server, server_key         signed by ca, for IP 127.0.0.1 and DNS localhost (serverAuth)
  client, client_key         signed by ca (clientAuth)
  stranger, stranger_key     a client certificate signed by another CA (other_ca)
Valid for two days from now.
"""
import os
import subprocess

_EC = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]


def _openssl(*args):
    subprocess.run(["openssl", *args], check=True, capture_output=True,
                   stdin=subprocess.DEVNULL, timeout=60)


def make_certs(folder):
    folder = str(folder)
    path = {}

    def name(key, file):
        path[key] = os.path.join(folder, file)
        return path[key]

    for ca in ("ca", "other_ca"):
        _openssl("req", "-x509", *_EC, "-days", "2", "-subj", f"/CN=tilejit test {ca}",
                 "-keyout", name(ca + "_key", ca + ".key"), "-out", name(ca, ca + ".pem"))
    leaves = (("server", "ca", "serverAuth"), ("client", "ca", "clientAuth"),
              ("stranger", "other_ca", "clientAuth"))
    for serial, (leaf, ca, usage) in enumerate(leaves, start=1):
        ext = os.path.join(folder, leaf + ".ext")
        with open(ext, "w") as f:
            f.write("basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\n"
                    f"extendedKeyUsage={usage}\n")
            if leaf == "server":
                f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
        csr = os.path.join(folder, leaf + ".csr")
        _openssl("req", *_EC, "-subj", f"/CN=tilejit test {leaf}",
                 "-keyout", name(leaf + "_key", leaf + ".key"), "-out", csr)
        _openssl("x509", "-req", "-in", csr, "-CA", path[ca], "-CAkey", path[ca + "_key"],
                 "-set_serial", str(serial), "-days", "2", "-extfile", ext,
                 "-out", name(leaf, leaf + ".pem"))
    return path
