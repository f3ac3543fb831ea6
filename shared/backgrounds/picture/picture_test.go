package picture_test

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"
	"time"

	"github.com/gen2brain/webp"

	"surveyservice/shared/backgrounds/picture"
)

// photo is a w×h picture with a gradient, so that scaling and encoding
// have something to do.
func photo(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x * 255 / w), uint8(y * 255 / h), uint8((x ^ y) & 0xFF), 255})
		}
	}
	return img
}

func pngOf(tb testing.TB, img image.Image) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

func jpegOf(tb testing.TB, img image.Image) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// WithEXIF is a JPEG with an APP1 Exif segment (a camera's, with GPS)
// after its SOI marker.
func WithEXIF(j []byte) []byte {
	payload := append([]byte("Exif\x00\x00MM\x00\x2a\x00\x00\x00\x08"), []byte("GPS 35.6892N 51.3890E secret-camera-serial")...)
	seg := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(payload)+2))
	out := append([]byte{}, j[:2]...)
	out = append(out, seg...)
	out = append(out, payload...)
	return append(out, j[2:]...)
}

// HugePNG is a small PNG whose header claims w×h pixels: a decompression
// bomb's header, with a valid CRC so that the decoder reads it.
func HugePNG(w, h uint32) []byte {
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 2 // 8 bits, truecolour
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		binary.Write(&b, binary.BigEndian, uint32(len(data)))
		b.WriteString(typ)
		b.Write(data)
		binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	chunk("IHDR", ihdr)
	chunk("IDAT", []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})
	chunk("IEND", nil)
	return b.Bytes()
}

func TestCheck(t *testing.T) {
	small := photo(40, 30)
	var wp bytes.Buffer
	if err := webp.Encode(&wp, small); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, declared string
		body           []byte
		want           error
		w, h           int
	}{
		{"png", "image/png", pngOf(t, small), nil, 40, 30},
		{"jpeg", "image/jpeg", jpegOf(t, small), nil, 40, 30},
		{"webp", "image/webp", wp.Bytes(), nil, 40, 30},
		{"text named .png", "image/png", []byte("hello, this is not a picture\n"), picture.ErrNotImage, 0, 0},
		{"empty", "image/png", nil, picture.ErrNotImage, 0, 0},
		{"gif", "image/png", []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"), picture.ErrNotImage, 0, 0},
		{"png header only", "image/png", []byte("\x89PNG\r\n\x1a\n"), picture.ErrNotImage, 0, 0},
		{"too many pixels", "image/png", HugePNG(6001, 10), picture.ErrTooWide, 0, 0},
		{"too tall", "image/png", HugePNG(10, 100000), picture.ErrTooWide, 0, 0},
		{"too large", "image/png", append(pngOf(t, small), make([]byte, picture.MaxBytes)...), picture.ErrTooLarge, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, cfg, err := picture.Check(c.body, c.declared)
			if err != c.want {
				t.Fatalf("Check: %v, want %v", err, c.want)
			}
			if err == nil && (cfg.Width != c.w || cfg.Height != c.h) {
				t.Fatalf("size %dx%d, want %dx%d", cfg.Width, cfg.Height, c.w, c.h)
			}
		})
	}
	t.Run("png claiming jpeg", func(t *testing.T) {
		_, _, err := picture.Check(pngOf(t, small), "image/jpeg")
		if err == nil || err.Error() != "The file is image/png, not image/jpeg." {
			t.Fatalf("Check: %v", err)
		}
	})
	t.Run("truncated body decodes to an error", func(t *testing.T) {
		j := jpegOf(t, photo(200, 100))
		if _, err := picture.Decode(j[:len(j)/2], "image/jpeg"); err != picture.ErrNotImage {
			t.Fatalf("Decode: %v", err)
		}
	})
}

func TestPictures(t *testing.T) {
	cases := []struct {
		name  string
		w, h  int
		sizes [][2]int // per Widths
	}{
		{"landscape", 2400, 1600, [][2]int{{320, 213}, {640, 426}, {1280, 853}, {1920, 1280}}},
		{"narrow: never enlarged", 500, 1000, [][2]int{{320, 640}, {500, 1000}, {500, 1000}, {500, 1000}}},
		{"a line", 3000, 1, [][2]int{{320, 1}, {640, 1}, {1280, 1}, {1920, 1}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			img, err := picture.Decode(WithEXIF(jpegOf(t, photo(c.w, c.h))), "image/jpeg")
			if err != nil {
				t.Fatal(err)
			}
			pics, err := picture.Pictures(img)
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range pics {
				if p.Width != c.sizes[i][0] || p.Height != c.sizes[i][1] {
					t.Errorf("size %d: %dx%d, want %v", picture.Widths[i], p.Width, p.Height, c.sizes[i])
				}
				cfg, err := webp.DecodeConfig(bytes.NewReader(p.Body))
				if err != nil || cfg.Width != p.Width || cfg.Height != p.Height {
					t.Errorf("size %d: the WebP reads %dx%d (%v)", picture.Widths[i], cfg.Width, cfg.Height, err)
				}
				if picture.Sniff(p.Body) != "image/webp" || bytes.Contains(p.Body, []byte("Exif")) || bytes.Contains(p.Body, []byte("secret")) {
					t.Errorf("size %d: not a bare WebP", picture.Widths[i])
				}
			}
		})
	}
}

// BenchmarkPhoto is what a 4000×3000 JPEG costs: decoding it and writing
// every size (ns/op), the bytes in and out, and the memory allocated
// (figures for docs/themes.md). The first run also compiles the WebP
// encoder's WebAssembly, as a cold Lambda does.
func BenchmarkPhoto(b *testing.B) {
	j := jpegOf(b, photo(4000, 3000))
	b.ReportAllocs()
	var out int
	var decode, scale, encode time.Duration
	for b.Loop() {
		t0 := time.Now()
		img, err := picture.Decode(j, "image/jpeg")
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		src := image.Image(img)
		var scaled []*image.RGBA
		for i := len(picture.Widths) - 1; i >= 0; i-- {
			s := picture.Scale(src, picture.Widths[i])
			scaled, src = append(scaled, s), s
		}
		t2 := time.Now()
		out = 0
		for _, s := range scaled {
			var buf bytes.Buffer
			if err := webp.Encode(&buf, s, webp.Options{Quality: picture.Quality}); err != nil {
				b.Fatal(err)
			}
			out += buf.Len()
		}
		decode, scale, encode = decode+t1.Sub(t0), scale+t2.Sub(t1), encode+time.Since(t2)
	}
	n := float64(b.N)
	b.ReportMetric(float64(len(j)), "bytes-in")
	b.ReportMetric(float64(out), "bytes-out")
	b.ReportMetric(float64(decode.Milliseconds())/n, "decode-ms/op")
	b.ReportMetric(float64(scale.Milliseconds())/n, "scale-ms/op")
	b.ReportMetric(float64(encode.Milliseconds())/n, "encode-ms/op")
}

// FuzzCheck feeds the header check and the decoder any bytes: they never
// panic, never accept more than MaxSide a side, and whatever they accept
// decodes to the header's size.
func FuzzCheck(f *testing.F) {
	small := photo(8, 6)
	f.Add(pngOf(f, small))
	f.Add(jpegOf(f, small))
	var wp bytes.Buffer
	webp.Encode(&wp, small)
	f.Add(wp.Bytes())
	f.Add(HugePNG(7000, 7000))
	f.Add([]byte("RIFF\x00\x00\x00\x00WEBPVP8 "))
	f.Fuzz(func(t *testing.T, b []byte) {
		ct, cfg, err := picture.Check(b, "")
		if err != nil {
			return
		}
		if cfg.Width > picture.MaxSide || cfg.Height > picture.MaxSide || ct == "" {
			t.Fatalf("accepted %s %dx%d", ct, cfg.Width, cfg.Height)
		}
		if cfg.Width*cfg.Height > 1<<20 {
			return // a real picture that size decodes; the fuzzer's would only take time
		}
		img, err := picture.Decode(b, ct)
		if err == nil && (img.Bounds().Dx() != cfg.Width || img.Bounds().Dy() != cfg.Height) {
			t.Fatalf("decoded %v, header %dx%d", img.Bounds(), cfg.Width, cfg.Height)
		}
	})
}
