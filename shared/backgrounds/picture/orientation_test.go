package picture_test

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"image"
	"strconv"
	"strings"
	"testing"

	"github.com/gen2brain/webp"

	"surveyservice/shared/backgrounds/picture"
)

// tiffWith is a TIFF header in byte order bo whose IFD0 holds a Make tag
// (so that the reader walks entries) and Orientation o: the Exif a phone
// writes, as a PNG's eXIf chunk carries it.
func tiffWith(o uint16, bo binary.AppendByteOrder) []byte {
	tiff := []byte("II*\x00")
	if bo == binary.BigEndian {
		tiff = []byte("MM\x00*")
	}
	tiff = bo.AppendUint32(tiff, 8)
	tiff = bo.AppendUint16(tiff, 2)
	tiff = bo.AppendUint16(tiff, 0x010F) // Make, ASCII, 4 bytes inline
	tiff = bo.AppendUint16(tiff, 2)
	tiff = bo.AppendUint32(tiff, 4)
	tiff = append(tiff, "Cam\x00"...)
	tiff = bo.AppendUint16(tiff, 0x0112)
	tiff = bo.AppendUint16(tiff, 3)
	tiff = bo.AppendUint32(tiff, 1)
	tiff = bo.AppendUint16(tiff, o)
	tiff = bo.AppendUint16(tiff, 0)
	return bo.AppendUint32(tiff, 0) // no next IFD
}

// pngChunk is one PNG chunk: length, type, data and CRC.
func pngChunk(typ string, data []byte) []byte {
	c := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	c = append(c, typ...)
	c = append(c, data...)
	return binary.BigEndian.AppendUint32(c, crc32.ChecksumIEEE(append([]byte(typ), data...)))
}

// pngWith is the PNG p (as image/png writes it: IHDR, IDAT..., IEND) with
// chunks inserted right after IHDR (before the pixels) or, with
// afterIDAT, right before IEND.
func pngWith(p []byte, afterIDAT bool, chunks ...[]byte) []byte {
	at := 8 + 8 + 13 + 4 // the signature and IHDR
	if afterIDAT {
		at = len(p) - 12 // IEND
	}
	out := append([]byte{}, p[:at]...)
	for _, c := range chunks {
		out = append(out, c...)
	}
	return append(out, p[at:]...)
}

// rawProfile is ImageMagick's "Raw profile type exif" text: a newline,
// the profile's name, its length and its bytes in hex, 36 bytes a line,
// with the JPEG APP1 segment's "Exif\0\0" before the TIFF header.
func rawProfile(tiff []byte) []byte {
	data := append([]byte("Exif\x00\x00"), tiff...)
	s := []byte("\nexif\n")
	s = append(s, []byte("    ")...)
	s = strconv.AppendInt(s, int64(len(data)), 10)
	for i := 0; i < len(data); i += 36 {
		s = append(s, '\n')
		s = append(s, hex.EncodeToString(data[i:min(i+36, len(data))])...)
	}
	return append(s, '\n')
}

// rawProfileChunk is the ImageMagick form as a tEXt or a zTXt chunk.
func rawProfileChunk(typ string, tiff []byte) []byte {
	data := []byte("Raw profile type exif\x00")
	if typ == "zTXt" {
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		zw.Write(rawProfile(tiff))
		zw.Close()
		data = append(append(data, 0), z.Bytes()...)
	} else {
		data = append(data, rawProfile(tiff)...)
	}
	return pngChunk(typ, data)
}

// webpBitstream is img encoded by libwebp as a simple WebP (RIFF, WEBP and
// one "VP8 " or "VP8L" chunk: an opaque picture has no ALPH), and that
// chunk, header and padding included.
func webpBitstream(tb testing.TB, img image.Image, lossless bool) []byte {
	var b bytes.Buffer
	if err := webp.Encode(&b, img, webp.Options{Quality: 90, Lossless: lossless}); err != nil {
		tb.Fatal(err)
	}
	w := b.Bytes()
	if string(w[12:16]) != "VP8 " && string(w[12:16]) != "VP8L" {
		tb.Fatalf("libwebp wrote a %q chunk first", w[12:16])
	}
	return w[12:]
}

// riffChunk is one RIFF chunk: FourCC, little-endian size, payload and a
// padding byte when the size is odd.
func riffChunk(fourcc string, payload []byte) []byte {
	c := append([]byte(fourcc), binary.LittleEndian.AppendUint32(nil, uint32(len(payload)))...)
	c = append(c, payload...)
	if len(payload)%2 == 1 {
		c = append(c, 0)
	}
	return c
}

// webpVP8X is an extended WebP of a w×h canvas: a VP8X chunk with flags,
// then the chunks in order (the bitstream, then EXIF where a writer puts it).
func webpVP8X(w, h int, flags byte, chunks ...[]byte) []byte {
	x := []byte{flags, 0, 0, 0}
	x = append(x, byte(w-1), byte((w-1)>>8), byte((w-1)>>16))
	x = append(x, byte(h-1), byte((h-1)>>8), byte((h-1)>>16))
	body := append([]byte("WEBP"), riffChunk("VP8X", x)...)
	for _, c := range chunks {
		body = append(body, c...)
	}
	return append(append([]byte("RIFF"), binary.LittleEndian.AppendUint32(nil, uint32(len(body)))...), body...)
}

// exifFlag is the VP8X flag that says the file has an EXIF chunk.
const exifFlag = 0x08

// TestOrientationRead: which Exif of a PNG or WebP counts, and that
// anything malformed reads as upright (1) and changes nothing. The rules
// follow libpng and libwebp's demuxer: one eXIf (the first with a good
// CRC), raw TIFF (a JPEG's "Exif\0\0" before it is not the chunk's
// format, and Chromium ignores such a chunk too); in a WebP the first
// EXIF chunk, only when VP8X's EXIF flag says the file has one.
func TestOrientationRead(t *testing.T) {
	const w, h = 64, 32
	stored := photo(w, h)
	p := pngOf(t, stored)
	lossy := webpBitstream(t, stored, false)
	le, be := binary.LittleEndian, binary.BigEndian
	eXIf := func(tiff []byte) []byte { return pngChunk("eXIf", tiff) }
	badCRC := func(c []byte) []byte { c = append([]byte{}, c...); c[len(c)-1] ^= 1; return c }
	// farIFD is a TIFF header whose IFD0 lies past its end.
	farIFD := append([]byte("MM\x00*"), be.AppendUint32(nil, 1<<30)...)
	profile := func(keyword, text string) []byte {
		return pngChunk("tEXt", append([]byte(keyword+"\x00"), text...))
	}
	var bomb bytes.Buffer
	zw := zlib.NewWriter(&bomb)
	zw.Write(bytes.Repeat([]byte("\n"), 4<<20))
	zw.Close()
	cases := []struct {
		name, ct string
		b        []byte
		want     int
		decodes  bool // and Decode answers a picture turned by want
	}{
		{"png: tEXt raw profile", "image/png", pngWith(p, true, rawProfileChunk("tEXt", tiffWith(6, be))), 6, true},
		{"png: two eXIf, the first counts", "image/png", pngWith(p, false, eXIf(tiffWith(6, le)), eXIf(tiffWith(8, le))), 6, true},
		{"png: eXIf before and after IDAT", "image/png", pngWith(pngWith(p, false, eXIf(tiffWith(8, be))), true, eXIf(tiffWith(6, be))), 8, true},
		{"png: eXIf wins over a raw profile", "image/png", pngWith(p, false, rawProfileChunk("zTXt", tiffWith(8, le)), eXIf(tiffWith(3, le))), 3, true},
		{"png: a damaged eXIf is skipped", "image/png", pngWith(p, false, badCRC(eXIf(tiffWith(8, le))), eXIf(tiffWith(6, le))), 6, false},
		{"png: eXIf with a JPEG's Exif header", "image/png", pngWith(p, false, eXIf(append([]byte("Exif\x00\x00"), tiffWith(6, le)...))), 1, true},
		{"png: eXIf not a TIFF", "image/png", pngWith(p, false, eXIf([]byte("hello, world"))), 1, true},
		{"png: eXIf cut short", "image/png", pngWith(p, false, eXIf(tiffWith(6, le)[:20])), 1, true},
		{"png: eXIf whose IFD is past its end", "image/png", pngWith(p, false, eXIf(farIFD)), 1, true},
		{"png: eXIf whose orientation is 9", "image/png", pngWith(p, false, eXIf(tiffWith(9, le))), 1, true},
		{"png: eXIf empty", "image/png", pngWith(p, false, eXIf(nil)), 1, true},
		{"png: eXIf after IEND", "image/png", append(append([]byte{}, p...), eXIf(tiffWith(6, le))...), 1, false},
		{"png: chunk length past the file", "image/png", append(append([]byte{}, p[:33]...), "\x7f\xff\xff\xffeXIfII*\x00"...), 1, false},
		{"png: raw profile of another keyword", "image/png", pngWith(p, false, profile("Comment", string(rawProfile(tiffWith(6, le))))), 1, true},
		{"png: raw profile longer than its hex", "image/png", pngWith(p, false, profile("Raw profile type exif", "\nexif\n    9999\n4578696600004d4d002a\n")), 1, true},
		{"png: raw profile with a non-hex letter", "image/png", pngWith(p, false, profile("Raw profile type exif",
			strings.Replace(string(rawProfile(tiffWith(6, le))), "4578", "45x8", 1))), 1, true},
		{"png: raw profile without its name line", "image/png", pngWith(p, false, profile("Raw profile type exif", "exif 12 4578")), 1, true},
		{"png: zTXt raw profile that inflates to 4 MB", "image/png", pngWith(p, false, pngChunk("zTXt", append([]byte("Raw profile type exif\x00\x00"), bomb.Bytes()...))), 1, true},
		{"webp: EXIF without VP8X's flag", "image/webp", webpVP8X(w, h, 0, lossy, riffChunk("EXIF", tiffWith(6, le))), 1, true},
		{"webp: a simple file's trailing EXIF", "image/webp", riffFile(append(append([]byte{}, lossy...), riffChunk("EXIF", tiffWith(6, le))...)), 1, true},
		{"webp: EXIF before the bitstream", "image/webp", webpVP8X(w, h, exifFlag, riffChunk("EXIF", tiffWith(6, be)), lossy), 6, true},
		{"webp: two EXIF, the first counts", "image/webp", webpVP8X(w, h, exifFlag, lossy, riffChunk("EXIF", tiffWith(8, le)), riffChunk("EXIF", tiffWith(6, le))), 8, true},
		{"webp: after an odd-sized chunk and its padding", "image/webp", webpVP8X(w, h, exifFlag|0x04, lossy, riffChunk("XMP ", []byte("<x/>!")), riffChunk("EXIF", tiffWith(5, be))), 5, true},
		{"webp: EXIF not a TIFF", "image/webp", webpVP8X(w, h, exifFlag, lossy, riffChunk("EXIF", []byte("Exif\x00\x00garbage!"))), 1, true},
		{"webp: EXIF size past the file", "image/webp", func() []byte {
			b := webpVP8X(w, h, exifFlag, lossy, riffChunk("EXIF", tiffWith(6, le)))
			le.PutUint32(b[len(b)-len(tiffWith(6, le))-4:], 1<<31)
			return b
		}(), 1, true},
		{"webp: EXIF outside the RIFF size", "image/webp", func() []byte {
			b := webpVP8X(w, h, exifFlag, lossy)
			return append(b, riffChunk("EXIF", tiffWith(6, le))...)
		}(), 1, true},
		{"webp: VP8X cut short", "image/webp", []byte("RIFF\x12\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x08\x00"), 1, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := picture.Orientation(c.b); got != c.want {
				t.Fatalf("Orientation %d, want %d", got, c.want)
			}
			if !c.decodes {
				return
			}
			img, err := picture.Decode(c.b, c.ct)
			if err != nil {
				t.Fatal(err)
			}
			want := image.Pt(w, h)
			if c.want >= 5 {
				want = image.Pt(h, w)
			}
			if img.Bounds().Size() != want {
				t.Fatalf("decoded %v, want %v", img.Bounds().Size(), want)
			}
		})
	}
}

// riffFile is a WebP file of the chunks given: RIFF, its size, WEBP.
func riffFile(chunks []byte) []byte {
	body := append([]byte("WEBP"), chunks...)
	return append(append([]byte("RIFF"), binary.LittleEndian.AppendUint32(nil, uint32(len(body)))...), body...)
}

// FuzzPNGExif feeds the PNG chunk reader any bytes after the signature,
// and any eXIf, tEXt or zTXt chunk (with a good CRC, so that the fuzzer
// reaches the TIFF and raw profile readers) before or after the pixels:
// it never panics and answers 1-8.
func FuzzPNGExif(f *testing.F) {
	p := pngOf(f, photo(8, 6))
	f.Add(pngWith(p, false, pngChunk("eXIf", tiffWith(6, binary.LittleEndian)))[8:], uint8(0), tiffWith(8, binary.BigEndian))
	f.Add(pngWith(p, true, rawProfileChunk("zTXt", tiffWith(6, binary.BigEndian)))[8:], uint8(2), []byte("Raw profile type exif\x00\x00x\x9c"))
	f.Add(pngWith(p, true, rawProfileChunk("tEXt", tiffWith(3, binary.LittleEndian)))[8:], uint8(5), append([]byte("Raw profile type exif\x00"), rawProfile(tiffWith(7, binary.LittleEndian))...))
	f.Add([]byte("\x00\x00\x00\x10eXIfII*\x00"), uint8(1), []byte("Raw profile type APP1\x00\nexif\n 8\n49492a0008000000\n"))
	types := []string{"eXIf", "tEXt", "zTXt"}
	f.Fuzz(func(t *testing.T, rest []byte, kind uint8, data []byte) {
		if o := picture.Orientation(append([]byte("\x89PNG\r\n\x1a\n"), rest...)); o < 1 || o > 8 {
			t.Fatalf("orientation %d", o)
		}
		b := pngWith(p, kind&4 != 0, pngChunk(types[int(kind)%len(types)], data))
		if o := picture.Orientation(b); o < 1 || o > 8 {
			t.Fatalf("orientation %d", o)
		}
	})
}

// FuzzWebPExif feeds the RIFF chunk reader any bytes after "RIFF" (the
// size theirs, or the right one) and any EXIF chunk behind VP8X flags: it
// never panics, answers 1-8, and 1 when the EXIF flag is not set.
func FuzzWebPExif(f *testing.F) {
	lossy := webpBitstream(f, photo(8, 6), false)
	f.Add(webpVP8X(8, 6, exifFlag, lossy, riffChunk("EXIF", tiffWith(6, binary.LittleEndian)))[4:], uint8(exifFlag), tiffWith(8, binary.BigEndian))
	f.Add(webpVP8X(8, 6, exifFlag, riffChunk("EXIF", append([]byte("Exif\x00\x00"), tiffWith(6, binary.BigEndian)...)), lossy)[4:], uint8(0), []byte("Exif\x00\x00MM\x00*"))
	f.Add([]byte("\xff\xff\xff\xffWEBPVP8X\x0a\x00\x00\x00\x08\x00\x00\x00\x07\x00\x00\x05\x00\x00EXIF\xf0\xff\xff\xff"), uint8(0xff), []byte{})
	f.Fuzz(func(t *testing.T, rest []byte, flags uint8, data []byte) {
		if o := picture.Orientation(append([]byte("RIFF"), rest...)); o < 1 || o > 8 {
			t.Fatalf("orientation %d", o)
		}
		if len(rest) >= 8 {
			sized := binary.LittleEndian.AppendUint32([]byte("RIFF"), uint32(len(rest)-4))
			if o := picture.Orientation(append(sized, rest[4:]...)); o < 1 || o > 8 {
				t.Fatalf("orientation %d", o)
			}
		}
		o := picture.Orientation(webpVP8X(8, 6, flags, lossy, riffChunk("EXIF", data)))
		if o < 1 || o > 8 || (flags&exifFlag == 0 && o != 1) {
			t.Fatalf("flags %#x: orientation %d", flags, o)
		}
	})
}
