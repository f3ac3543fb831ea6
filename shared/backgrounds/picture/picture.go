// Package picture makes the pictures of a theme's background image
// (contract section 22): it checks an uploaded file by its bytes (PNG,
// JPEG or WebP; at most MaxBytes; each side at most MaxSide pixels, read
// from the header before anything is decoded), then decodes it and writes
// the sizes the page and the theme's thumbnail need as WebP. Decoding and
// encoding again keeps the pixels only: EXIF, GPS and every other chunk of
// the original are gone, and the original bytes are never served.
package picture

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"

	"github.com/gen2brain/webp"
	"golang.org/x/image/draw"
	xwebp "golang.org/x/image/webp"

	"surveyservice/shared/backgrounds"
)

// The limits and sizes are backgrounds'.
const (
	MaxBytes       = backgrounds.MaxBytes
	MaxSide        = backgrounds.MaxSide
	ThumbnailWidth = backgrounds.ThumbnailWidth
	PageWidth      = backgrounds.PageWidth
)

// Widths are backgrounds.Widths.
var Widths = backgrounds.Widths

// Quality of the WebP files (libwebp's scale, 0-100): the backgrounds
// sit behind opaque cards, and 80 keeps a 1920 px photo near 200 KB.
const Quality = 80

// Messages of a refused upload: the 400 on upload_id.
var (
	ErrNotImage = errors.New("Upload a PNG, JPEG or WebP image.")
	ErrTooLarge = fmt.Errorf("The image is larger than %d MB.", MaxBytes>>20)
	ErrTooWide  = fmt.Errorf("The image is larger than %d × %d pixels.", MaxSide, MaxSide)
)

// TypeMismatch is the 400 of a file whose bytes are of another type than
// the one it was uploaded as.
func TypeMismatch(sniffed, declared string) error {
	return fmt.Errorf("The file is %s, not %s.", sniffed, declared)
}

// Sniff is the content type of an image by its first bytes ("" when it is
// none of ContentTypes).
func Sniff(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}):
		return "image/jpeg"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

// Check reads the file's header: its type by its bytes (which must be
// the declared one when declared is set) and its size in pixels, without
// decoding the pixels, so that a small file claiming a huge picture is
// refused before it takes memory. The errors are the 400's messages.
func Check(b []byte, declared string) (string, image.Config, error) {
	if len(b) > MaxBytes {
		return "", image.Config{}, ErrTooLarge
	}
	ct := Sniff(b)
	if ct == "" {
		return "", image.Config{}, ErrNotImage
	}
	if declared != "" && declared != ct {
		return ct, image.Config{}, TypeMismatch(ct, declared)
	}
	var cfg image.Config
	var err error
	switch ct {
	case "image/png":
		cfg, err = png.DecodeConfig(bytes.NewReader(b))
	case "image/jpeg":
		cfg, err = jpeg.DecodeConfig(bytes.NewReader(b))
	default:
		cfg, err = xwebp.DecodeConfig(bytes.NewReader(b))
	}
	if err != nil || cfg.Width < 1 || cfg.Height < 1 {
		return ct, cfg, ErrNotImage
	}
	if cfg.Width > MaxSide || cfg.Height > MaxSide {
		return ct, cfg, ErrTooWide
	}
	return ct, cfg, nil
}

// Decode checks the file (Check) and decodes its pixels, upright: the
// EXIF Orientation of a JPEG, PNG or WebP (a phone's photo; Orientation)
// is applied, so that 5-8 swap the header's width and height. A
// decoder's failure (a truncated or corrupt body behind a good header) is
// ErrNotImage; a decoded picture whose size differs from its header's is
// too.
func Decode(b []byte, declared string) (image.Image, error) {
	ct, cfg, err := Check(b, declared)
	if err != nil {
		return nil, err
	}
	var img image.Image
	switch ct {
	case "image/png":
		img, err = png.Decode(bytes.NewReader(b))
	case "image/jpeg":
		img, err = jpeg.Decode(bytes.NewReader(b))
	default:
		img, err = xwebp.Decode(bytes.NewReader(b))
	}
	if err != nil || img.Bounds().Dx() != cfg.Width || img.Bounds().Dy() != cfg.Height {
		return nil, ErrNotImage
	}
	return Orient(img, Orientation(b)), nil
}

// Picture is one size the service writes: a WebP file.
type Picture = backgrounds.Picture

// Pictures are the image at each of Widths as WebP, narrowest first. Each
// size is scaled from the next wider one, so that the original is read
// once however large it is.
func Pictures(img image.Image) ([]Picture, error) {
	out := make([]Picture, len(Widths))
	src := toRGBA(img)
	for i := len(Widths) - 1; i >= 0; i-- {
		scaled := Scale(src, Widths[i])
		var buf bytes.Buffer
		if err := webp.Encode(&buf, scaled, webp.Options{Quality: Quality}); err != nil {
			return nil, fmt.Errorf("picture: encode %d px: %w", Widths[i], err)
		}
		b := scaled.Bounds()
		out[i] = Picture{Width: b.Dx(), Height: b.Dy(), Body: buf.Bytes()}
		src = scaled
	}
	return out, nil
}

// Scale is the image at width (its height in proportion, at least 1
// pixel), or at its own width when it is narrower: always a new RGBA
// picture, so the encoder sees pixels only. While the image is at least
// twice as wide as asked it is halved, each pixel the mean of four (a box
// filter: every source pixel counts, so nothing aliases); the last step,
// under a factor of two, is bilinear. Catmull-Rom, tried first, kept a
// float64 row of the width asked for every source row: 180 MB and 3 s for
// a 4000x3000 photo, against 50 MB and a fraction of that here.
func Scale(img image.Image, width int) *image.RGBA {
	src := toRGBA(img)
	for src.Bounds().Dx() >= 2*width && src.Bounds().Dy() >= 2 {
		src = halve(src)
	}
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	if w <= width {
		if src == img {
			dst := image.NewRGBA(image.Rect(0, 0, w, h))
			copy(dst.Pix, src.Pix)
			return dst
		}
		return src
	}
	h = max(1, int(int64(h)*int64(width)/int64(w)))
	dst := image.NewRGBA(image.Rect(0, 0, width, h))
	draw.ApproxBiLinear.Scale(dst, dst.Bounds(), src, b, draw.Src, nil)
	return dst
}

// toRGBA is the image as RGBA at the origin (itself when it is one).
func toRGBA(img image.Image) *image.RGBA {
	if r, ok := img.(*image.RGBA); ok && r.Bounds().Min == (image.Point{}) && r.Stride == 4*r.Bounds().Dx() {
		return r
	}
	b := img.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(dst, dst.Bounds(), img, b.Min, draw.Src)
	return dst
}

// halve is src at half its width and height (rounded down; an odd last
// column or row is left out), each pixel the mean of four.
func halve(src *image.RGBA) *image.RGBA {
	w, h := src.Bounds().Dx()/2, src.Bounds().Dy()/2
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		r0 := src.Pix[2*y*src.Stride:]
		r1 := src.Pix[(2*y+1)*src.Stride:]
		d := dst.Pix[y*dst.Stride:]
		for x := 0; x < w; x++ {
			i := 8 * x
			for c := 0; c < 4; c++ {
				d[4*x+c] = uint8((uint32(r0[i+c]) + uint32(r0[i+4+c]) + uint32(r1[i+c]) + uint32(r1[i+4+c]) + 2) >> 2)
			}
		}
	}
	return dst
}
