package themeimages_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"net/http"
	"testing"

	"github.com/gen2brain/webp"

	"surveyservice/shared/backgrounds"
)

// exif6 is the Exif a phone writes for a photo held upright while the
// sensor's rows ran sideways: a little-endian TIFF whose IFD0 has a Make
// and Orientation 6 (turn 90° clockwise to stand upright).
func exif6() []byte {
	le := binary.LittleEndian
	t := le.AppendUint32([]byte("II*\x00"), 8)
	t = le.AppendUint16(t, 2)
	t = le.AppendUint16(le.AppendUint16(t, 0x010F), 2) // Make, ASCII
	t = append(le.AppendUint32(t, 4), "Cam\x00"...)
	t = le.AppendUint16(le.AppendUint16(t, 0x0112), 3) // Orientation, SHORT
	t = le.AppendUint16(le.AppendUint32(t, 1), 6)
	return le.AppendUint32(le.AppendUint16(t, 0), 0)
}

// sideways is a 400×200 picture as a phone's sensor stored it: a red block
// at its top left and a green one at its top right.
func sideways() *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, 400, 200))
	for y := 0; y < 200; y++ {
		for x := 0; x < 400; x++ {
			c := color.NRGBA{128, 128, 128, 255}
			switch {
			case x < 60 && y < 60:
				c = color.NRGBA{255, 0, 0, 255}
			case x >= 340 && y < 60:
				c = color.NRGBA{0, 255, 0, 255}
			}
			img.Set(x, y, c)
		}
	}
	return img
}

// pngWithEXIF is the PNG of img with an eXIf chunk right after IHDR.
func pngWithEXIF(t *testing.T, img image.Image, tiff []byte) []byte {
	p := pngBytes(t, img)
	c := binary.BigEndian.AppendUint32(nil, uint32(len(tiff)))
	c = append(append(c, "eXIf"...), tiff...)
	c = binary.BigEndian.AppendUint32(c, crc32.ChecksumIEEE(c[4:]))
	at := 8 + 8 + 13 + 4
	return append(append(append([]byte{}, p[:at]...), c...), p[at:]...)
}

// webpWithEXIF is img as an extended WebP, as a phone or a converter
// writes one: VP8X (its EXIF flag set), libwebp's VP8 bitstream, EXIF.
func webpWithEXIF(t *testing.T, img image.Image, tiff []byte) []byte {
	var b bytes.Buffer
	if err := webp.Encode(&b, img, webp.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	bitstream := b.Bytes()[12:] // the "VP8 " chunk: an opaque picture has no ALPH
	w, h := img.Bounds().Dx()-1, img.Bounds().Dy()-1
	vp8x := []byte{0x08, 0, 0, 0, byte(w), byte(w >> 8), byte(w >> 16), byte(h), byte(h >> 8), byte(h >> 16)}
	chunk := func(fourcc string, p []byte) []byte {
		c := binary.LittleEndian.AppendUint32([]byte(fourcc), uint32(len(p)))
		if c = append(c, p...); len(p)%2 == 1 {
			c = append(c, 0)
		}
		return c
	}
	body := append([]byte("WEBP"), chunk("VP8X", vp8x)...)
	body = append(append(body, bitstream...), chunk("EXIF", tiff)...)
	return append(binary.LittleEndian.AppendUint32([]byte("RIFF"), uint32(len(body))), body...)
}

// TestThemeBackgroundImageUpright uploads a phone's PNG and WebP whose
// Exif says Orientation 6 through the presigned POST to the emulator's S3
// and sets them: every size the service writes stands upright (200×400,
// the red block at the top right and the green one at the bottom right),
// as the phone showed the photo, and carries no Exif.
func TestThemeBackgroundImageUpright(t *testing.T) {
	f := newBgFixture(t)
	for _, c := range []struct {
		name, file, ct string
		body           []byte
	}{
		{"png eXIf", "phone.png", "image/png", pngWithEXIF(t, sideways(), exif6())},
		{"webp EXIF", "phone.webp", "image/webp", webpWithEXIF(t, sideways(), exif6())},
	} {
		t.Run(c.name, func(t *testing.T) {
			tid := f.theme(t)
			id := f.upload(t, tid, c.file, c.ct, c.body)
			if r := f.do(t, "PUT", imagePath(tid), fmt.Sprintf(`{"upload_id": %q}`, id)); r.code != http.StatusOK {
				t.Fatalf("PUT: %d %s", r.code, r.body)
			}
			for _, w := range backgrounds.Widths {
				key := fmt.Sprintf("%s%d-%s-%d.webp", backgrounds.MediaPrefix, tid, id, w)
				body, _, err := f.bucket.Read(t.Context(), key, 10<<20)
				if err != nil {
					t.Fatalf("%s: %v", key, err)
				}
				for _, meta := range []string{"Exif", "EXIF", "eXIf", "Cam"} {
					if bytes.Contains(body, []byte(meta)) {
						t.Errorf("%s carries %q", key, meta)
					}
				}
				img, err := webp.Decode(bytes.NewReader(body))
				if err != nil {
					t.Fatalf("%s: %v", key, err)
				}
				if got := img.Bounds().Size(); got != image.Pt(200, 400) {
					t.Fatalf("%s is %v, want 200×400 (upright, never enlarged)", key, got)
				}
				for _, k := range []struct {
					corner, want string
					x, y         int
				}{{"top right", "red", 190, 10}, {"bottom right", "green", 190, 390}, {"top left", "grey", 10, 10}, {"bottom left", "grey", 10, 390}} {
					if got := colorName(img.At(k.x, k.y)); got != k.want {
						t.Errorf("%s: the %s is %s, want %s", key, k.corner, got, k.want)
					}
				}
			}
		})
	}
}

// colorName is "red", "green" or "grey" for the test picture's colours
// after lossy encoding, else "other".
func colorName(c color.Color) string {
	r, g, b, _ := c.RGBA()
	r, g, b = r>>8, g>>8, b>>8
	switch {
	case r > 200 && g < 60 && b < 60:
		return "red"
	case g > 200 && r < 60 && b < 60:
		return "green"
	case r > 100 && r < 160 && g > 100 && g < 160 && b > 100 && b < 160:
		return "grey"
	}
	return "other"
}
