package picture

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"io"
)

// Orientation is the EXIF Orientation (1-8) of a JPEG, PNG or WebP: how
// its stored pixels must be turned to stand upright. A phone writes the
// sensor's rows as they come and records the turn here instead of turning
// the pixels, so a picture decoded without it lies on its side or
// mirrored. The Exif is a TIFF header and IFD0, found in a JPEG's APP1
// "Exif" segment, a PNG's eXIf chunk (or ImageMagick's "Raw profile type
// exif" text) and an extended WebP's EXIF chunk. 1 (upright) when the file
// is none of these, has no Exif or no such tag, or when anything in it is
// out of bounds: every length and offset is checked against the bytes,
// none is trusted.
func Orientation(b []byte) int {
	switch {
	case len(b) >= 2 && b[0] == 0xFF && b[1] == 0xD8:
		return tiffOrientation(jpegExif(b))
	case bytes.HasPrefix(b, pngSignature):
		return tiffOrientation(pngExif(b))
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return tiffOrientation(webpExif(b))
	}
	return 1
}

// exifHeader is what a JPEG's APP1 segment has before the TIFF header;
// some writers put it in a WebP's EXIF chunk too.
const exifHeader = "Exif\x00\x00"

// jpegExif is the TIFF of a JPEG's APP1 Exif segment (nil when none is
// found before the scan).
func jpegExif(b []byte) []byte {
	// Walk the segments before the scan (SOS): each is FF, a marker and a
	// big-endian length that counts itself.
	for i := 2; i+4 <= len(b); {
		if b[i] != 0xFF {
			return nil
		}
		m := b[i+1]
		if m == 0xFF { // fill byte
			i++
			continue
		}
		if m == 0xD8 || m == 0x01 || (m >= 0xD0 && m <= 0xD7) { // markers without a length
			i += 2
			continue
		}
		if m == 0xDA || m == 0xD9 { // the scan or the end: no Exif before it
			return nil
		}
		n := int(binary.BigEndian.Uint16(b[i+2:]))
		if n < 2 || i+2+n > len(b) {
			return nil
		}
		seg := b[i+4 : i+2+n]
		if m == 0xE1 && bytes.HasPrefix(seg, []byte(exifHeader)) {
			return seg[len(exifHeader):]
		}
		i += 2 + n
	}
	return nil
}

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// maxProfileText bounds the inflated text of a zTXt raw profile: an Exif
// is at most 64 KB in a JPEG, and its hex about twice that, so a profile
// that inflates past 1 MB is no camera's and is not read (a zlib bomb
// costs at most this much).
const maxProfileText = 1 << 20

// pngExif is the TIFF of a PNG's Exif (nil when there is none). The eXIf
// chunk (PNG 1.5 extensions; PNG third edition) holds it raw; it is taken
// before or after the pixels (IDAT), since the server has the whole file
// (a browser, which draws while the file arrives, ignores one after
// them). Only one eXIf is allowed: the first with a good CRC is the one.
// Without it, the first ImageMagick "Raw profile type exif" (or "APP1")
// tEXt or zTXt chunk: hex of the JPEG APP1 payload, written by older
// ImageMagick and read by exiftool and Pillow, though no browser reads it.
func pngExif(b []byte) []byte {
	var profile []byte
	for i := len(pngSignature); i+12 <= len(b); {
		n := uint64(binary.BigEndian.Uint32(b[i:]))
		if n > 1<<31-1 || n > uint64(len(b)-i-12) {
			break
		}
		typ, data := string(b[i+4:i+8]), b[i+8:i+8+int(n)]
		sum := binary.BigEndian.Uint32(b[i+8+int(n):])
		i += 12 + int(n)
		if typ == "IEND" {
			break
		}
		if typ != "eXIf" && (profile != nil || (typ != "tEXt" && typ != "zTXt")) {
			continue
		}
		// A chunk whose CRC is wrong is damaged, and libpng drops it.
		crc := crc32.NewIEEE()
		crc.Write(b[i-12-int(n)+4 : i-4])
		if crc.Sum32() != sum {
			continue
		}
		if typ == "eXIf" {
			return data
		}
		profile = rawProfile(typ, data)
	}
	return profile
}

// rawProfile is the TIFF in a tEXt or zTXt chunk whose keyword is "Raw
// profile type exif" or "Raw profile type APP1" (nil otherwise, or when
// it is malformed). Its text is ImageMagick's: a newline, the profile's
// name and a newline, the length in bytes in decimal, then that many
// bytes in hex, broken into lines; the bytes are the APP1 payload,
// "Exif\0\0" and the TIFF (the header is optional here).
func rawProfile(typ string, data []byte) []byte {
	kw, text, ok := bytes.Cut(data, []byte{0})
	if !ok || (string(kw) != "Raw profile type exif" && string(kw) != "Raw profile type APP1") {
		return nil
	}
	if typ == "zTXt" {
		if len(text) < 1 || text[0] != 0 { // compression method 0, zlib, is the only one
			return nil
		}
		zr, err := zlib.NewReader(bytes.NewReader(text[1:]))
		if err != nil {
			return nil
		}
		text, err = io.ReadAll(io.LimitReader(zr, maxProfileText+1))
		if err != nil || len(text) > maxProfileText {
			return nil
		}
	}
	// "\n<name>\n   <length>\n<hex>": skip the name's line, read the length.
	if len(text) < 1 || text[0] != '\n' {
		return nil
	}
	_, text, ok = bytes.Cut(text[1:], []byte{'\n'})
	if !ok {
		return nil
	}
	text = bytes.TrimLeft(text, " ")
	length := 0
	for len(text) > 0 && text[0] >= '0' && text[0] <= '9' && length <= maxProfileText {
		length = 10*length + int(text[0]-'0')
		text = text[1:]
	}
	if length < 1 || 2*length > len(text) {
		return nil
	}
	out := make([]byte, 0, length)
	var hi byte
	odd := false
	for _, c := range text {
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		case c == '\n' || c == '\r' || c == ' ':
			continue
		default:
			return nil
		}
		if !odd {
			hi, odd = v, true
			continue
		}
		out, odd = append(out, hi<<4|v), false
		if len(out) == length {
			return bytes.TrimPrefix(out, []byte(exifHeader))
		}
	}
	return nil
}

// webpExif is the TIFF of an extended WebP's EXIF chunk (nil when there
// is none). As libwebp's demuxer (which Android's decoder uses) does, the
// chunk counts only in a VP8X file whose EXIF flag is set, and the first
// one is taken, wherever it is among the chunks; a simple file (one VP8
// or VP8L chunk) carries no metadata. Its payload is the TIFF, or
// "Exif\0\0" and the TIFF, as some writers copy it from a JPEG.
func webpExif(b []byte) []byte {
	const exifFlag = 0x08
	if len(b) < 30 || string(b[12:16]) != "VP8X" || binary.LittleEndian.Uint32(b[16:]) < 10 || b[20]&exifFlag == 0 {
		return nil
	}
	// The RIFF size counts from "WEBP"; the file may be shorter (cut) or
	// longer (trailing bytes, which are no chunks).
	end := uint64(min(len(b), 8+int(min(binary.LittleEndian.Uint32(b[4:]), 1<<31))))
	for i := uint64(12); i+8 <= end; {
		n := uint64(binary.LittleEndian.Uint32(b[i+4:]))
		if n > end-i-8 {
			return nil
		}
		if string(b[i:i+4]) == "EXIF" {
			return bytes.TrimPrefix(b[i+8:i+8+n], []byte(exifHeader))
		}
		i += 8 + n + n&1
	}
	return nil
}

// tiffOrientation reads tag 0x0112 of IFD0 in a TIFF header of either
// byte order (1 when absent or malformed).
func tiffOrientation(t []byte) int {
	if len(t) < 8 {
		return 1
	}
	var bo binary.ByteOrder
	switch string(t[:4]) {
	case "II*\x00":
		bo = binary.LittleEndian
	case "MM\x00*":
		bo = binary.BigEndian
	default:
		return 1
	}
	ifd := bo.Uint32(t[4:])
	if ifd < 8 || uint64(ifd)+2 > uint64(len(t)) {
		return 1
	}
	count := int(bo.Uint16(t[ifd:]))
	entries := t[ifd+2:]
	for k := 0; k < count && 12*k+12 <= len(entries); k++ {
		e := entries[12*k : 12*k+12]
		if bo.Uint16(e) != 0x0112 {
			continue
		}
		// SHORT (3), one value, held in the first two bytes of the value field.
		if bo.Uint16(e[2:]) != 3 || bo.Uint32(e[4:]) != 1 {
			return 1
		}
		if o := int(bo.Uint16(e[8:])); o >= 1 && o <= 8 {
			return o
		}
		return 1
	}
	return 1
}

// Orient is img turned as EXIF orientation o asks (1 or an unknown value:
// img itself). 5-8 swap its width and height.
func Orient(img image.Image, o int) image.Image {
	if o < 2 || o > 8 {
		return img
	}
	src := toRGBA(img)
	w, h := src.Bounds().Dx(), src.Bounds().Dy()
	dw, dh := w, h
	if o >= 5 {
		dw, dh = h, w
	}
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	for y := 0; y < dh; y++ {
		for x := 0; x < dw; x++ {
			var sx, sy int
			switch o {
			case 2: // mirrored
				sx, sy = w-1-x, y
			case 3: // turned 180°
				sx, sy = w-1-x, h-1-y
			case 4: // upside down, mirrored
				sx, sy = x, h-1-y
			case 5: // transposed
				sx, sy = y, x
			case 6: // to be turned 90° clockwise
				sx, sy = y, h-1-x
			case 7: // transversed
				sx, sy = w-1-y, h-1-x
			case 8: // to be turned 90° counter-clockwise
				sx, sy = w-1-y, x
			}
			copy(dst.Pix[y*dst.Stride+4*x:y*dst.Stride+4*x+4], src.Pix[sy*src.Stride+4*sx:sy*src.Stride+4*sx+4])
		}
	}
	return dst
}
