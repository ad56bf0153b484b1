// The Kubernetes example (config/examples/kubernetes/): every manifest parses
// (multi-document YAML); the ConfigMap's job YAML loads and names the pods of
// the Indexed Job under the headless Service as its hosts; each pod runs one
// machine's roles with flags `distgnn --role R --help` lists, --machine auto
// (JOB_COMPLETION_INDEX) and the token from the Secret's file; probes ask
// /healthz and /readyz at each container's metrics port, which no port the job
// YAML derives takes.
#include <catch2/catch.hpp>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include "config/job_config.h"
#include "roles/job/machine_identity.h"
#include "test/support/test_support.h"

using namespace dg;
using namespace dg::test;

namespace {

struct Manifests {
  std::map<std::string, std::vector<YAML::Node>> by_kind;
  int files = 0;

  Manifests() {
    const std::string dir = SourceDir() + "/config/examples/kubernetes";
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() != ".yaml") continue;
      ++files;
      for (const YAML::Node& doc : YAML::LoadAllFromFile(entry.path().string()))
        if (doc.IsMap()) by_kind[doc["kind"].as<std::string>()].push_back(doc);
    }
  }
  const YAML::Node& One(const std::string& kind) const {
    INFO(kind);
    REQUIRE(by_kind.count(kind));
    REQUIRE(by_kind.at(kind).size() == 1);
    return by_kind.at(kind)[0];
  }
};

// The ConfigMap's job YAML loaded as a role loads it, its partition and model
// paths (on the pods' volume) pointed at stand-ins with the same machine count.
JobConfig LoadConfigMapJob(const Manifests& m, const TempDir& dir) {
  const std::string text = m.One("ConfigMap")["data"]["job.yaml"].as<std::string>();
  const size_t machines = YAML::Load(text)["machines"].size();
  std::filesystem::create_directories(dir / "parts");
  std::ofstream(dir / "parts/g.json") << "{\"num_parts\": " << machines << ", \"graph_name\": \"g\"}\n";
  std::ofstream(dir / "model.pt") << "x";
  std::ofstream(dir / "job.yaml") << text;
  auto job = LoadJobConfig(dir / "job.yaml",
                           {"partition=" + dir / "parts/g.json", "train.model=" + dir / "model.pt"});
  INFO((job.ok() ? std::string("ok") : job.status().message()));
  REQUIRE(job.ok());
  return *job;
}

// Every container of the pod template: the init containers that run beside
// the others (restartPolicy: Always) and the containers.
std::vector<YAML::Node> PodContainers(const YAML::Node& pod, std::set<std::string>* sidecars) {
  std::vector<YAML::Node> out;
  for (const YAML::Node& c : pod["initContainers"]) {
    REQUIRE(c["restartPolicy"].as<std::string>("") == "Always");  // an init container that ends would block the pod
    sidecars->insert(c["name"].as<std::string>());
    out.push_back(c);
  }
  for (const YAML::Node& c : pod["containers"]) out.push_back(c);
  return out;
}

// "--flag value" pairs of a container's args (a flag without a value maps to "").
std::map<std::string, std::string> Flags(const YAML::Node& container) {
  std::vector<std::string> args;
  for (const YAML::Node& a : container["args"]) args.push_back(a.as<std::string>());
  std::map<std::string, std::string> out;
  for (size_t i = 0; i < args.size(); ++i) {
    REQUIRE(args[i].rfind("--", 0) == 0);
    const bool has_value = i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0;
    out[args[i]] = has_value ? args[i + 1] : "";
    if (has_value) ++i;
  }
  return out;
}

// The flags `distgnn --role ROLE --help` lists (the real binary).
std::set<std::string> AcceptedFlags(const std::string& role) {
  auto help = RunDistgnn({"--role", role, "--help"}, 60);
  INFO(help.output);
  REQUIRE(help.exit_code == 0);
  std::set<std::string> out;
  const std::regex flag("--[a-z][a-z-]*");
  for (auto it = std::sregex_iterator(help.output.begin(), help.output.end(), flag); it != std::sregex_iterator(); ++it)
    out.insert(it->str());
  return out;
}

// The port a probe asks, by number or by the name of one of the container's ports.
int ProbePort(const YAML::Node& container, const YAML::Node& probe) {
  const YAML::Node port = probe["httpGet"]["port"];
  for (const YAML::Node& p : container["ports"])
    if (p["name"] && p["name"].as<std::string>() == port.as<std::string>()) return p["containerPort"].as<int>();
  return port.as<int>();
}

}  // namespace

TEST_CASE("the Kubernetes example parses and its job YAML names the Indexed Job's pods as hosts",
          "[config][kubernetes]") {
  Manifests m;
  CHECK(m.files >= 3);
  TempDir dir;
  const JobConfig job = LoadConfigMapJob(m, dir);
  const YAML::Node& svc = m.One("Service");
  const YAML::Node& kjob = m.One("Job");
  const std::string service = svc["metadata"]["name"].as<std::string>();
  const std::string job_name = kjob["metadata"]["name"].as<std::string>();
  CHECK(svc["spec"]["clusterIP"].as<std::string>() == "None");  // headless: one DNS name per pod
  CHECK(svc["spec"]["publishNotReadyAddresses"].as<bool>());     // names resolve before the pods are ready
  CHECK(svc["spec"]["selector"]["job-name"].as<std::string>() == job_name);
  CHECK(kjob["spec"]["completionMode"].as<std::string>() == "Indexed");
  CHECK(kjob["spec"]["completions"].as<int>() == job.num_machines());
  CHECK(kjob["spec"]["parallelism"].as<int>() == job.num_machines());
  CHECK(kjob["spec"]["template"]["spec"]["subdomain"].as<std::string>() == service);
  CHECK(kjob["spec"]["template"]["spec"]["terminationGracePeriodSeconds"].as<int>() >= 60);
  for (int i = 0; i < job.num_machines(); ++i)
    CHECK(job.machines[i].host == job_name + "-" + std::to_string(i) + "." + service);
  // The ConfigMap is mounted where the containers' --config points.
  const YAML::Node pod = kjob["spec"]["template"]["spec"];
  std::string configmap_volume;
  for (const YAML::Node& v : pod["volumes"])
    if (v["configMap"] && v["configMap"]["name"].as<std::string>() == m.One("ConfigMap")["metadata"]["name"].as<std::string>())
      configmap_volume = v["name"].as<std::string>();
  REQUIRE(!configmap_volume.empty());
  std::set<std::string> sidecars;
  for (const YAML::Node& c : PodContainers(pod, &sidecars)) {
    std::string mounted;
    for (const YAML::Node& vm : c["volumeMounts"])
      if (vm["name"].as<std::string>() == configmap_volume) mounted = vm["mountPath"].as<std::string>();
    CHECK(Flags(c)["--config"] == mounted + "/job.yaml");
  }
}

TEST_CASE("the Kubernetes example runs each machine's roles with --machine auto, accepted flags and probes on "
          "their metrics ports",
          "[config][kubernetes]") {
  Manifests m;
  TempDir dir;
  const JobConfig job = LoadConfigMapJob(m, dir);
  const YAML::Node pod = m.One("Job")["spec"]["template"]["spec"];
  std::set<std::string> sidecars;
  const std::vector<YAML::Node> containers = PodContainers(pod, &sidecars);
  std::map<std::string, std::set<std::string>> accepted;
  std::map<std::string, std::set<int>> indices;  // per role
  std::set<int> metrics_ports;
  for (const YAML::Node& c : containers) {
    const std::string name = c["name"].as<std::string>();
    INFO("container " << name);
    auto flags = Flags(c);
    const std::string role = flags["--role"];
    REQUIRE((role == "server" || role == "trainer" || role == "sampler"));
    if (!accepted.count(role)) accepted[role] = AcceptedFlags(role);
    for (const auto& [flag, value] : flags) {
      INFO(flag);
      CHECK(accepted[role].count(flag));
    }
    // JOB_COMPLETION_INDEX, which Kubernetes sets: the container sets none of the variables --machine auto reads.
    CHECK(flags["--machine"] == "auto");
    for (const YAML::Node& e : c["env"])
      for (const std::string& v : MachineIndexVariables()) CHECK(e["name"].as<std::string>() != v);
    indices[role].insert(std::stoi(flags["--index"]));
    // A server never ends by itself: it runs beside the others and is stopped when they end.
    CHECK((role == "server") == (sidecars.count(name) == 1));
    // Its metrics port: declared, probed, and taken by nothing the job YAML derives.
    const int port = std::stoi(flags["--metrics-port"]);
    CHECK(metrics_ports.insert(port).second);
    bool declared = false;
    for (const YAML::Node& p : c["ports"]) declared = declared || p["containerPort"].as<int>() == port;
    CHECK(declared);
    REQUIRE(c["readinessProbe"]);
    REQUIRE(c["livenessProbe"]);
    CHECK(c["readinessProbe"]["httpGet"]["path"].as<std::string>() == "/readyz");
    CHECK(c["livenessProbe"]["httpGet"]["path"].as<std::string>() == "/healthz");
    CHECK(ProbePort(c, c["readinessProbe"]) == port);
    CHECK(ProbePort(c, c["livenessProbe"]) == port);
    if (c["startupProbe"]) {
      CHECK(c["startupProbe"]["httpGet"]["path"].as<std::string>() == "/healthz");
      CHECK(ProbePort(c, c["startupProbe"]) == port);
    }
    for (int machine = 0; machine < job.num_machines(); ++machine) {
      for (int i = 0; i < job.servers_per_machine; ++i) CHECK(job.ServerPort(machine, i) != port);
      for (int t = 0; t < job.trainers_per_machine; ++t) CHECK(job.TrainerPort(machine, t) != port);
    }
    CHECK(job.rendezvous_port != port);
  }
  // One container per process of a machine, indices 0..n-1 per role.
  auto all = [](int n) {
    std::set<int> s;
    for (int i = 0; i < n; ++i) s.insert(i);
    return s;
  };
  CHECK(indices["server"] == all(job.servers_per_machine));
  CHECK(indices["trainer"] == all(job.trainers_per_machine));
  CHECK(indices["sampler"] == all(job.num_samplers_per_machine()));
}

TEST_CASE("the Kubernetes example reads the token from a Secret file only its owner may read", "[config][kubernetes]") {
  Manifests m;
  const YAML::Node pod = m.One("Job")["spec"]["template"]["spec"];
  std::map<std::string, std::string> secret_volumes;  // volume name -> defaultMode
  for (const YAML::Node& v : pod["volumes"])
    if (v["secret"]) secret_volumes[v["name"].as<std::string>()] = v["secret"]["defaultMode"].as<std::string>("");
  REQUIRE(secret_volumes.size() == 1);
  // 0400 in YAML 1.1 (Kubernetes) is octal; distgnn refuses a token file others may read.
  CHECK((secret_volumes.begin()->second == "0400" || secret_volumes.begin()->second == "256"));
  std::set<std::string> sidecars;
  for (const YAML::Node& c : PodContainers(pod, &sidecars)) {
    INFO("container " << c["name"].as<std::string>());
    std::string token_file, secret_mount;
    for (const YAML::Node& e : c["env"])
      if (e["name"].as<std::string>() == "DISTGNN_TOKEN_FILE") token_file = e["value"].as<std::string>();
    for (const YAML::Node& vm : c["volumeMounts"])
      if (secret_volumes.count(vm["name"].as<std::string>())) secret_mount = vm["mountPath"].as<std::string>();
    REQUIRE(!secret_mount.empty());
    CHECK(token_file.rfind(secret_mount + "/", 0) == 0);
  }
  // The partition's volume is mounted read-only.
  for (const YAML::Node& v : pod["volumes"])
    if (v["persistentVolumeClaim"] && v["persistentVolumeClaim"]["claimName"].as<std::string>() == "distgnn-data")
      CHECK(v["persistentVolumeClaim"]["readOnly"].as<bool>());
}
