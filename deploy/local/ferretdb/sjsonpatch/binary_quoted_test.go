package sjson

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// The Decoder FerretDB's binaryType used for every stored binary, as it used it.
func decoderBytes(data []byte) ([]byte, error) {
	var out []byte
	err := json.NewDecoder(bytes.NewReader(data)).Decode(&out)
	return out, err
}

func TestQuotedBase64DecodesWhatTheDecoderDecodes(t *testing.T) {
	random := rand.New(rand.NewPCG(16, 2026))
	for size := 0; size < 600; size++ {
		value := make([]byte, size)
		for i := range value {
			value[i] = byte(random.UintN(256))
		}
		stored, err := json.Marshal(value) // how FerretDB's binaryType stores a binary
		if err != nil {
			t.Fatal(err)
		}
		got, ok := quotedBase64(stored)
		want, decodeErr := decoderBytes(stored)
		if !ok || decodeErr != nil {
			t.Fatalf("%d bytes: ok %v, the Decoder's error %v", size, ok, decodeErr)
		}
		if !bytes.Equal(got, want) || !bytes.Equal(got, value) || got == nil {
			t.Fatalf("%d bytes: got %x, the Decoder %x, stored %x", size, got, want, value)
		}
	}
}

func TestQuotedBase64LeavesEveryOtherValueToTheDecoder(t *testing.T) {
	for _, data := range []string{
		`"QUJD\u0052A=="`, // an escape: the Decoder unquotes it first (a backslash is not base64)
		"\"QUJD\nRA==\"",  // a control character: the Decoder refuses it, base64 would skip it
		"\"QUJD\rRA==\"",  // likewise
		`"QUJ"`,           // not base64 (a partial quantum)
		`"QU!D"`,          // not the standard alphabet
		`"QUJD-_=="`,      // the URL alphabet
		`null`,
		`12`,
		`"`,
		``,
	} {
		if got, ok := quotedBase64([]byte(data)); ok {
			t.Errorf("%s decoded here as %x", data, got)
		}
	}
	// The Decoder itself still decodes an escaped one, as FerretDB did before.
	if got, err := decoderBytes([]byte(`"QUJD\u0052A=="`)); err != nil || string(got) != "ABCD" {
		t.Errorf("the Decoder gave %q, %v", got, err)
	}
	if _, err := base64.StdEncoding.DecodeString("QUJ"); err == nil {
		t.Error("base64 took a partial quantum")
	}
}
