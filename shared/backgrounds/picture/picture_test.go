package picture_test

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"strings"
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
	f.Add(withOrientation(jpegOf(f, small), 6, binary.BigEndian))
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
		if picture.Orientation(b) >= 5 {
			cfg.Width, cfg.Height = cfg.Height, cfg.Width // turned upright
		}
		if err == nil && (img.Bounds().Dx() != cfg.Width || img.Bounds().Dy() != cfg.Height) {
			t.Fatalf("decoded %v, header %dx%d", img.Bounds(), cfg.Width, cfg.Height)
		}
	})
}

// withOrientation is a JPEG with an APP1 Exif segment whose IFD0 holds
// Orientation o (tiffWith), in byte order bo.
func withOrientation(j []byte, o uint16, bo binary.AppendByteOrder) []byte {
	payload := append([]byte("Exif\x00\x00"), tiffWith(o, bo)...)
	seg := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(payload)+2))
	out := append([]byte{}, j[:2]...)
	out = append(out, seg...)
	out = append(out, payload...)
	return append(out, j[2:]...)
}

// TestOrientation: a phone's picture with EXIF Orientation 1-8 (both
// byte orders) is stored upright, whichever of the three types it is and
// wherever its type keeps the Exif: a JPEG's APP1 segment; a PNG's eXIf
// chunk before or after the pixels, or ImageMagick's zTXt raw profile; an
// extended WebP's EXIF chunk (lossy or lossless bitstream; bare TIFF or
// after "Exif\0\0"). The stored picture is 64×32 with a red block at its
// top left and a green one at its top right; the EXIF standard says where
// each corner stands once turned, and 5-8 swap width and height. The
// check is on the WebP files the service writes, which carry no Exif.
func TestOrientation(t *testing.T) {
	const w, h = 64, 32
	stored := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.RGBA{128, 128, 128, 255}
			switch {
			case x < 16 && y < 16:
				c = color.RGBA{255, 0, 0, 255}
			case x >= w-16 && y < 16:
				c = color.RGBA{0, 255, 0, 255}
			}
			stored.Set(x, y, c)
		}
	}
	j, p := jpegOf(t, stored), pngOf(t, stored)
	lossy, lossless := webpBitstream(t, stored, false), webpBitstream(t, stored, true)
	formats := []struct {
		name, ct string
		with     func(tiff []byte) []byte
	}{
		{"jpeg", "image/jpeg", nil},
		{"png eXIf before IDAT", "image/png", func(tiff []byte) []byte { return pngWith(p, false, pngChunk("eXIf", tiff)) }},
		{"png eXIf after IDAT", "image/png", func(tiff []byte) []byte { return pngWith(p, true, pngChunk("eXIf", tiff)) }},
		{"png zTXt raw profile", "image/png", func(tiff []byte) []byte { return pngWith(p, false, rawProfileChunk("zTXt", tiff)) }},
		{"webp VP8 EXIF", "image/webp", func(tiff []byte) []byte { return webpVP8X(w, h, exifFlag, lossy, riffChunk("EXIF", tiff)) }},
		{"webp VP8L Exif header", "image/webp", func(tiff []byte) []byte {
			return webpVP8X(w, h, exifFlag, lossless, riffChunk("EXIF", append([]byte("Exif\x00\x00"), tiff...)))
		}},
	}
	const tl, tr, bl, br = "top left", "top right", "bottom left", "bottom right"
	for _, tc := range []struct {
		o          uint16
		red, green string
	}{
		{1, tl, tr}, {2, tr, tl}, {3, br, bl}, {4, bl, br},
		{5, tl, bl}, {6, tr, br}, {7, br, tr}, {8, bl, tl},
	} {
		for _, f := range formats {
			for _, bo := range []binary.AppendByteOrder{binary.LittleEndian, binary.BigEndian} {
				checkUpright(t, f.name, f.ct, func() []byte {
					if f.with == nil {
						return withOrientation(j, tc.o, bo)
					}
					return f.with(tiffWith(tc.o, bo))
				}(), int(tc.o), bo, w, h, tc.red, tc.green)
			}
		}
	}
}

// checkUpright decodes b, whose Exif says Orientation o, and writes its
// pictures: the narrowest (64 px wide at most, never enlarged) must be
// w×h turned by o, with red and green at the corners named, and carry no
// Exif.
func checkUpright(t *testing.T, name, ct string, b []byte, o int, bo binary.AppendByteOrder, w, h int, red, green string) {
	t.Helper()
	if got := picture.Orientation(b); got != o {
		t.Fatalf("%s %d %v: Orientation %d", name, o, bo, got)
	}
	img, err := picture.Decode(b, ct)
	if err != nil {
		t.Fatalf("%s %d %v: %v", name, o, bo, err)
	}
	pics, err := picture.Pictures(img)
	if err != nil {
		t.Fatal(err)
	}
	wantW, wantH := w, h
	if o >= 5 {
		wantW, wantH = h, w
	}
	p := pics[0]
	if p.Width != wantW || p.Height != wantH {
		t.Fatalf("%s %d %v: stored %dx%d, want %dx%d", name, o, bo, p.Width, p.Height, wantW, wantH)
	}
	if bytes.Contains(p.Body, []byte("Exif")) || bytes.Contains(p.Body, []byte("EXIF")) || bytes.Contains(p.Body, []byte("Cam")) {
		t.Fatalf("%s %d %v: the WebP carries the Exif", name, o, bo)
	}
	got, err := webp.Decode(bytes.NewReader(p.Body))
	if err != nil {
		t.Fatal(err)
	}
	if c := corner(got, red); c.R < 200 || c.G > 60 {
		t.Errorf("%s, orientation %d %v: %s is %v, want red", name, o, bo, red, c)
	}
	if c := corner(got, green); c.G < 200 || c.R > 60 {
		t.Errorf("%s, orientation %d %v: %s is %v, want green", name, o, bo, green, c)
	}
}

// corner is the colour 4 pixels in from the corner named ("top left",
// "top right", "bottom left", "bottom right") of img.
func corner(img image.Image, name string) color.RGBA {
	b := img.Bounds()
	x, y := b.Min.X+4, b.Min.Y+4
	if strings.HasSuffix(name, "right") {
		x = b.Max.X - 5
	}
	if strings.HasPrefix(name, "bottom") {
		y = b.Max.Y - 5
	}
	r, g, bl, _ := img.At(x, y).RGBA()
	return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 255}
}

// FuzzOrientation feeds the Exif reader any bytes behind a JPEG's SOI and
// an APP1 Exif header: it never panics and answers 1-8.
func FuzzOrientation(f *testing.F) {
	j := jpegOf(f, photo(8, 6))
	f.Add(withOrientation(j, 6, binary.LittleEndian))
	f.Add(withOrientation(j, 8, binary.BigEndian))
	f.Add(WithEXIF(j))
	f.Add([]byte("\xFF\xD8\xFF\xE1\x00\x10Exif\x00\x00II*\x00\xFF\xFF\xFF\x7F"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if o := picture.Orientation(b); o < 1 || o > 8 {
			t.Fatalf("orientation %d", o)
		}
		if o := picture.Orientation(append([]byte{0xFF, 0xD8}, b...)); o < 1 || o > 8 {
			t.Fatalf("orientation %d", o)
		}
	})
}
