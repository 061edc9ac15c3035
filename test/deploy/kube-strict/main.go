// Command kube-strict decodes rendered Kubernetes manifests strictly into the typed API
// objects of k8s.io/api: an unknown or misspelt field, a duplicate field or a wrong type is
// an error (the JSON schemas of kubernetes-models, used beside it, accept unknown fields).
//
// Usage: kube-strict FILE...   (multi-document YAML, as `helm template` prints it)
package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: kube-strict FILE...")
		os.Exit(2)
	}
	decoder := serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict).UniversalDeserializer()
	failed := false
	for _, file := range os.Args[1:] {
		count, err := checkFile(decoder, file)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: INVALID: %v\n", file, err)
			failed = true
			continue
		}
		fmt.Printf("%s: %d objects decode strictly\n", file, count)
	}
	if failed {
		os.Exit(1)
	}
}

func checkFile(decoder runtime.Decoder, file string) (int, error) {
	f, err := os.Open(file)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	reader := utilyaml.NewYAMLReader(bufio.NewReader(f))
	count := 0
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return count, nil
		}
		if err != nil {
			return count, err
		}
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			continue
		}
		if _, gvk, err := decoder.Decode(doc, nil, nil); err != nil {
			return count, fmt.Errorf("document %d (%v): %w", count+1, gvk, err)
		}
		count++
	}
}

// stripComments drops comment-only lines so a document holding just `# Source: ...` is skipped.
func stripComments(doc []byte) []byte {
	var out bytes.Buffer
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 && trimmed[0] != '#' {
			out.Write(line)
			out.WriteByte('\n')
		}
	}
	return out.Bytes()
}
