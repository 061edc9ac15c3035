package sjson

import "encoding/base64"

// quotedBase64 decodes a stored binary value, a JSON string of standard base64: the bytes encoding/json's Decoder
// gives for it, without the Decoder's scanning the string three times, byte by byte (on the local history stores,
// whose buckets hold their ticks as one binary each, that took a fifth to a third of a bucket listing's CPU). Only a
// string that base64 takes as it is decoded here: not one with an escape (a backslash is not base64) nor one with a
// control character, which the Decoder refuses and base64 would skip. Any other value is left to the Decoder (ok
// false), which decodes it or reports the error as before.
func quotedBase64(data []byte) (decoded []byte, ok bool) {
	if len(data) < 2 || data[0] != '"' || data[len(data)-1] != '"' {
		return nil, false
	}
	text := data[1 : len(data)-1]
	for _, c := range text {
		if c < 0x20 {
			return nil, false
		}
	}
	decoded = make([]byte, base64.StdEncoding.DecodedLen(len(text)))
	n, err := base64.StdEncoding.Decode(decoded, text)
	if err != nil {
		return nil, false
	}
	return decoded[:n], true
}
