package picture

import (
	"encoding/binary"
	"image"
)

// Orientation is the EXIF Orientation (1-8) of a JPEG: how its stored
// pixels must be turned to stand upright. A phone writes the sensor's rows
// as they come and records the turn here instead of turning the pixels, so
// a picture decoded without it lies on its side or mirrored. 1 (upright)
// when the file is no JPEG, has no Exif segment or no such tag, or when
// anything in it is out of bounds: every length and offset is checked
// against the bytes, none is trusted.
func Orientation(b []byte) int {
	if len(b) < 4 || b[0] != 0xFF || b[1] != 0xD8 {
		return 1
	}
	// Walk the segments before the scan (SOS): each is FF, a marker and a
	// big-endian length that counts itself.
	for i := 2; i+4 <= len(b); {
		if b[i] != 0xFF {
			return 1
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
			return 1
		}
		n := int(binary.BigEndian.Uint16(b[i+2:]))
		if n < 2 || i+2+n > len(b) {
			return 1
		}
		seg := b[i+4 : i+2+n]
		if m == 0xE1 && len(seg) >= 6 && string(seg[:6]) == "Exif\x00\x00" {
			return tiffOrientation(seg[6:])
		}
		i += 2 + n
	}
	return 1
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
