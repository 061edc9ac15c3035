// Command validate checks Envoy bootstrap files against the Envoy v3 API offline: each file
// is parsed strictly (unknown fields and unknown typed_config types are errors) and every
// message, including the ones packed in typed_config, passes its protoc-gen-validate rules.
//
// Usage: envoy-validate FILE...   (YAML or JSON; exit code 1 names the first problem per file)
package main

import (
	"fmt"
	"os"

	bootstrapv3 "github.com/envoyproxy/go-control-plane/envoy/config/bootstrap/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
	"sigs.k8s.io/yaml"

	// Every extension the config names in a typed_config must be registered to be resolved.
	_ "github.com/envoyproxy/go-control-plane/envoy/config/trace/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/access_loggers/stream/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/buffer/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/health_check/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/local_ratelimit/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/router/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/formatter/req_without_query/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/resource_monitors/downstream_connections/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/retry/host/previous_hosts/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
)

type validatable interface{ ValidateAll() error }

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: envoy-validate FILE...")
		os.Exit(2)
	}
	failed := false
	for _, file := range os.Args[1:] {
		if err := validateFile(file); err != nil {
			fmt.Fprintf(os.Stderr, "%s: INVALID: %v\n", file, err)
			failed = true
			continue
		}
		fmt.Printf("%s: valid Envoy v3 bootstrap\n", file)
	}
	if failed {
		os.Exit(1)
	}
}

func validateFile(file string) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	asJSON, err := yaml.YAMLToJSON(raw)
	if err != nil {
		return fmt.Errorf("not YAML: %w", err)
	}
	bootstrap := &bootstrapv3.Bootstrap{}
	if err := (protojson.UnmarshalOptions{DiscardUnknown: false}).Unmarshal(asJSON, bootstrap); err != nil {
		return fmt.Errorf("does not match the v3 Bootstrap message: %w", err)
	}
	return validateTree(bootstrap.ProtoReflect(), "bootstrap")
}

// validateTree runs the message's own rules, then descends: the generated ValidateAll stops
// at google.protobuf.Any, so packed typed_configs are unpacked and checked here.
func validateTree(msg protoreflect.Message, path string) error {
	if any, ok := msg.Interface().(*anypb.Any); ok {
		inner, err := any.UnmarshalNew()
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return validateTree(inner.ProtoReflect(), fmt.Sprintf("%s(%s)", path, any.GetTypeUrl()))
	}
	if v, ok := msg.Interface().(validatable); ok {
		if err := v.ValidateAll(); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	var firstErr error
	msg.Range(func(field protoreflect.FieldDescriptor, value protoreflect.Value) bool {
		name := fmt.Sprintf("%s.%s", path, field.Name())
		switch {
		case field.IsList() && field.Message() != nil:
			list := value.List()
			for i := 0; i < list.Len() && firstErr == nil; i++ {
				firstErr = validateTree(list.Get(i).Message(), fmt.Sprintf("%s[%d]", name, i))
			}
		case field.IsMap() && field.MapValue().Message() != nil:
			value.Map().Range(func(key protoreflect.MapKey, entry protoreflect.Value) bool {
				firstErr = validateTree(entry.Message(), fmt.Sprintf("%s[%s]", name, key.String()))
				return firstErr == nil
			})
		case !field.IsList() && !field.IsMap() && field.Message() != nil:
			firstErr = validateTree(value.Message(), name)
		}
		return firstErr == nil
	})
	return firstErr
}
