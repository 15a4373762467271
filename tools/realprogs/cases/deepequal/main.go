// Command deepequal is a deployment controller's reconcile loop: for each
// service it derives the desired configuration from the spec, compares it
// with the observed one, and computes and applies a patch when they differ.
package main

import (
	"flag"
	"fmt"
	"hash/fnv"
	"log"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
)

type port struct {
	Name     string
	Port     int
	Protocol string
}

type config struct {
	Image    string
	Replicas int
	CPU      int // millicores
	MemoryMB int
	Env      []string
	Ports    []port
	Labels   [4]string
	Manifest string
}

type spec struct {
	name    string
	image   string
	tier    string
	load    float64
	env     map[string]string
	ports   []int
	version int
}

type service struct {
	spec     spec
	observed config
	patches  int
}

func main() {
	n := flag.Int("n", 250, "reconcile passes")
	prof := flag.String("cpuprofile", "", "write a CPU profile to this file")
	flag.Parse()
	svcs := makeServices(2000)
	r := rand.New(rand.NewPCG(91, 92))
	stop := startProfile(*prof)
	patched := 0
	for i := 0; i < *n; i++ {
		drift(svcs, r, 20)
		patched += reconcile(svcs)
	}
	stop()
	fmt.Println("patches applied:", patched)
}

func startProfile(path string) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		log.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			log.Fatal(err)
		}
	}
}

var tiers = []string{"frontend", "backend", "batch", "cache"}

func makeServices(k int) []*service {
	r := rand.New(rand.NewPCG(93, 94))
	out := make([]*service, k)
	for i := range out {
		sp := spec{name: "svc-" + strconv.Itoa(i), image: "registry.local/app" + strconv.Itoa(i%40), tier: tiers[r.IntN(4)],
			load: r.Float64() * 100, env: map[string]string{"LOG_LEVEL": "info", "REGION": "eu-1", "POOL": strconv.Itoa(r.IntN(8))},
			ports: []int{8080, 9090}, version: 1}
		s := &service{spec: sp}
		s.observed = desired(&s.spec)
		out[i] = s
	}
	return out
}

// drift changes a few specs, as deployments do.
func drift(svcs []*service, r *rand.Rand, k int) {
	for i := 0; i < k; i++ {
		s := svcs[r.IntN(len(svcs))]
		s.spec.version++
		s.spec.load = r.Float64() * 100
	}
}

func reconcile(svcs []*service) int {
	n := 0
	for _, s := range svcs {
		want := desired(&s.spec)
		if sameConfig(&want, &s.observed) {
			continue
		}
		p := makePatch(&s.observed, &want)
		apply(s, p, want)
		n++
	}
	return n
}

// desired derives the configuration a spec asks for.
func desired(sp *spec) config {
	c := config{Image: sp.image + ":v" + strconv.Itoa(sp.version), Replicas: replicas(sp), CPU: 250, MemoryMB: 256}
	if sp.tier == "batch" {
		c.CPU, c.MemoryMB = 1000, 2048
	}
	c.Env = envList(sp.env)
	for i, p := range sp.ports {
		c.Ports = append(c.Ports, port{Name: "p" + strconv.Itoa(i), Port: p, Protocol: "TCP"})
	}
	c.Labels = [4]string{"app=" + sp.name, "tier=" + sp.tier, "managed-by=controller", "hash=" + specHash(sp)}
	c.Manifest = manifest(&c)
	return c
}

// manifest renders the configuration as the YAML the controller applies.
func manifest(c *config) string {
	var b strings.Builder
	b.WriteString("image: ")
	b.WriteString(c.Image)
	b.WriteString("\nreplicas: ")
	b.WriteString(strconv.Itoa(c.Replicas))
	b.WriteString("\nresources:\n  cpu: ")
	b.WriteString(strconv.Itoa(c.CPU))
	b.WriteString("m\n  memory: ")
	b.WriteString(strconv.Itoa(c.MemoryMB))
	b.WriteString("Mi\nenv:\n")
	for _, e := range c.Env {
		k, v, _ := strings.Cut(e, "=")
		b.WriteString("  - name: ")
		b.WriteString(k)
		b.WriteString("\n    value: ")
		b.WriteString(strconv.Quote(v))
		b.WriteByte('\n')
	}
	b.WriteString("ports:\n")
	for _, p := range c.Ports {
		b.WriteString("  - name: ")
		b.WriteString(p.Name)
		b.WriteString("\n    port: ")
		b.WriteString(strconv.Itoa(p.Port))
		b.WriteString("\n    protocol: ")
		b.WriteString(p.Protocol)
		b.WriteByte('\n')
	}
	b.WriteString("labels:\n")
	for _, l := range c.Labels {
		b.WriteString("  ")
		b.WriteString(strings.Replace(l, "=", ": ", 1))
		b.WriteByte('\n')
	}
	return b.String()
}

func replicas(sp *spec) int {
	r := int(sp.load/20) + 1
	if sp.tier == "frontend" {
		r *= 2
	}
	return min(r, 10)
}

func envList(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

func specHash(sp *spec) string {
	h := fnv.New32a()
	h.Write([]byte(sp.name))
	h.Write([]byte(sp.image))
	h.Write([]byte(sp.tier))
	return strconv.FormatUint(uint64(h.Sum32()), 16)
}

// makePatch lists the fields that differ, as "field: old -> new".
func makePatch(have, want *config) []string {
	var p []string
	if have.Image != want.Image {
		p = append(p, "image: "+have.Image+" -> "+want.Image)
	}
	if have.Replicas != want.Replicas {
		p = append(p, "replicas: "+strconv.Itoa(have.Replicas)+" -> "+strconv.Itoa(want.Replicas))
	}
	if have.CPU != want.CPU || have.MemoryMB != want.MemoryMB {
		p = append(p, "resources")
	}
	if strings.Join(have.Env, ",") != strings.Join(want.Env, ",") {
		p = append(p, "env")
	}
	return p
}

func apply(s *service, p []string, want config) {
	s.observed = want
	s.patches += len(p)
}
