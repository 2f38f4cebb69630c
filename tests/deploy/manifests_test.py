# SPDX-License-Identifier: Apache-2.0
"""deploy.manifests: the deployment files agree with each other and with the daemon.

- deploy/k8s/*.yaml and deploy/compose.yaml parse (yaml.safe_load_all).
- Kubernetes: the tilejitd Deployment's readiness and liveness probes are gRPC on its
  container port; its container runs as non-root with a read-only root file system and no
  capabilities; the Service is headless and selects the Deployment's pod labels on that port;
  every ConfigMap and Secret a volume names is made by kustomization.yaml (its generators) or a
  manifest; the ConfigMap's tilejitd.toml uses only settings the daemon has.
- compose: every secret a service uses is defined (with a file), published host ports are
  distinct, every tilejitd flag it passes exists.
- deploy/tilejitd.example.toml lists exactly the settings of `tilejitd --help` plus the Redis
  tier's seven (commented out until they exist), each set to its --help default.
"""
import glob
import os
import re
import tomllib

import pytest
import yaml

import deploy_util as du

pytestmark = pytest.mark.timeout(60)
K8S = os.path.join(du.DEPLOY_DIR, "k8s")
# Settings the example sets to other than the default, and why.
EXAMPLE_NOT_DEFAULT = {"cache_path"}  # the systemd unit's state directory, /var/lib/tilejit


def _docs(path):
    with open(path) as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


@pytest.fixture(scope="module")
def k8s():
    docs = {}
    for path in sorted(glob.glob(os.path.join(K8S, "*.yaml"))):
        for doc in _docs(path):
            docs.setdefault(doc["kind"], []).append(doc)
    return docs


def _one(docs, kind, name):
    found = [d for d in docs.get(kind, []) if d["metadata"]["name"] == name]
    assert len(found) == 1, f"{kind}/{name}: {len(found)} definitions"
    return found[0]


def test_daemon_probes_are_grpc_on_the_container_port(k8s):
    pod = _one(k8s, "Deployment", "tilejitd")["spec"]["template"]["spec"]
    (container,) = [c for c in pod["containers"] if c["name"] == "tilejitd"]
    ports = {p["containerPort"] for p in container["ports"]}
    for probe in ("readinessProbe", "livenessProbe"):
        assert set(container[probe]) & {"grpc", "httpGet", "tcpSocket", "exec"} == {"grpc"}
        assert container[probe]["grpc"]["port"] in ports, probe


def test_daemon_runs_unprivileged_on_a_read_only_root(k8s):
    deployment = _one(k8s, "Deployment", "tilejitd")
    assert deployment["spec"]["replicas"] == 3
    pod = deployment["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["terminationGracePeriodSeconds"] > 30  # the daemon's default drain grace
    for c in pod["containers"]:
        sc = c["securityContext"]
        assert sc["readOnlyRootFilesystem"] is True and sc["allowPrivilegeEscalation"] is False
        assert sc["capabilities"]["drop"] == ["ALL"]
        assert "limits" in c["resources"] and "requests" in c["resources"]
    volumes = {v["name"]: v for v in pod["volumes"]}
    (container,) = pod["containers"]
    mounts = {m["mountPath"]: m for m in container["volumeMounts"]}
    assert "emptyDir" in volumes[mounts["/var/cache/tilejit"]["name"]]
    for m in mounts.values():
        if "secret" in volumes[m["name"]] or "configMap" in volumes[m["name"]]:
            assert m.get("readOnly") is True, m


def test_headless_service_selects_the_deployment_on_its_port(k8s):
    pod = _one(k8s, "Deployment", "tilejitd")["spec"]["template"]
    service = _one(k8s, "Service", "tilejitd")["spec"]
    assert service["clusterIP"] == "None"
    labels = pod["metadata"]["labels"]
    assert service["selector"].items() <= labels.items()
    (container,) = pod["spec"]["containers"]
    by_name = {p["name"]: p["containerPort"] for p in container["ports"]}
    for port in service["ports"]:
        assert port["port"] == 50051
        target = port.get("targetPort", port["port"])
        assert by_name.get(target, target) == 50051


def test_every_service_selects_some_deployment(k8s):
    pod_labels = [d["spec"]["template"]["metadata"]["labels"] for d in k8s["Deployment"]]
    for service in k8s["Service"]:
        selector = service["spec"]["selector"]
        assert any(selector.items() <= labels.items() for labels in pod_labels), service


def test_every_volume_source_is_defined(k8s):
    kustomization = _docs(os.path.join(K8S, "kustomization.yaml"))[0]
    config_maps = {g["name"] for g in kustomization.get("configMapGenerator", [])}
    secrets = {g["name"] for g in kustomization.get("secretGenerator", [])}
    config_maps |= {d["metadata"]["name"] for d in k8s.get("ConfigMap", [])}
    secrets |= {d["metadata"]["name"] for d in k8s.get("Secret", [])}
    for resource in kustomization["resources"]:
        assert os.path.exists(os.path.join(K8S, resource)), resource
    for generator in kustomization.get("configMapGenerator", []):
        for entry in generator["files"]:
            assert os.path.exists(os.path.join(K8S, entry.split("=")[-1])), entry
    for deployment in k8s["Deployment"]:
        for v in deployment["spec"]["template"]["spec"].get("volumes", []):
            if "configMap" in v:
                assert v["configMap"]["name"] in config_maps, v
            if "secret" in v:
                assert v["secret"]["secretName"] in secrets, v


def test_cluster_config_uses_known_settings_and_mounted_paths(k8s):
    with open(os.path.join(K8S, "tilejitd.toml"), "rb") as f:
        config = tomllib.load(f)
    known = set(du.help_settings()) | du.REDIS_KEYS
    assert set(config) <= known, set(config) - known
    pod = _one(k8s, "Deployment", "tilejitd")["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    mounts = [m["mountPath"] for m in container["volumeMounts"]]
    for key in ("cache_path", "auth_tokens", "cluster_key_file"):
        assert any(config[key].startswith(m + "/") for m in mounts), key
    args = container["args"]
    config_path = args[args.index("--config") + 1]
    assert any(config_path.startswith(m + "/") for m in mounts)


@pytest.fixture(scope="module")
def compose():
    (doc,) = _docs(os.path.join(du.DEPLOY_DIR, "compose.yaml"))
    return doc


def test_compose_secrets_are_defined(compose):
    defined = compose.get("secrets", {})
    for name, service in compose["services"].items():
        for secret in service.get("secrets", []):
            secret = secret if isinstance(secret, str) else secret["source"]
            assert secret in defined and "file" in defined[secret], (name, secret)


def test_compose_published_ports_are_distinct(compose):
    published = []
    for service in compose["services"].values():
        for port in service.get("ports", []):
            published.append(str(port).rsplit(":", 1)[0])
    assert len(published) == len(set(published)) == 3, published


def test_compose_daemons_pass_known_flags(compose):
    flags = du.daemon_flags()
    daemons = [s for s in compose["services"].values() if s.get("image", "").startswith("tilejit")]
    assert len(daemons) == 3
    for service in daemons:
        for arg in service["command"]:
            if arg.startswith("--"):
                assert arg[2:].split("=")[0] in flags, arg
        assert {"cluster_key", "tokens"} <= set(service["secrets"])
    redis = compose["services"]["redis"]["command"]
    assert redis[redis.index("--maxmemory-policy") + 1] == "volatile-lru"
    assert "--maxmemory" in redis


_COMMENTED_KEY = re.compile(r"^#\s*([a-z][a-z0-9_]*)\s*=")


def test_example_lists_every_setting_at_its_default():
    path = os.path.join(du.DEPLOY_DIR, "tilejitd.example.toml")
    with open(path, "rb") as f:
        active = tomllib.load(f)
    with open(path) as f:
        commented = {m.group(1) for line in f if (m := _COMMENTED_KEY.match(line))}
    help_keys = du.help_settings()
    assert set(active) | commented == set(help_keys) | du.REDIS_KEYS
    assert not set(active) & commented
    assert set(active) <= set(help_keys), "set only keys the daemon has now"
    assert commented <= du.REDIS_KEYS, "comment out only the Redis tier's keys"
    for key, value in active.items():
        if key in EXAMPLE_NOT_DEFAULT:
            continue
        default = help_keys[key]
        if isinstance(value, bool):  # CLI11 shows no default for a flag: false
            assert value is False and default is None, key
        else:
            assert str(value) == (default or ""), (key, value, default)
