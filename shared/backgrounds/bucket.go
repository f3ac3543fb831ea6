// Package backgrounds keeps a theme's background image (contract section
// 22) in the uploads bucket: the owner's upload, presigned as section 16's
// files are, and the sizes the service makes of it (package picture), by
// names that say the theme, the image and the width. It imports no image
// code, so that the pages group, which serves the sizes, stays small.
package backgrounds

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"surveyservice/shared/survey"
	"surveyservice/shared/uploads"
)

// Limits of an upload (contract section 22).
const (
	MaxBytes = 5 << 20
	MaxSide  = 6000
)

// Widths are the widths the service writes, narrowest first: the
// thumbnail (ThumbnailWidth), then the page's (a phone's, a tablet's or a
// 2x phone's, a desktop's). An image narrower than a width is not
// enlarged: that size is the image's own width.
var Widths = []int{ThumbnailWidth, 640, 1280, PageWidth}

// ThumbnailWidth is the background_image's thumbnail_url; PageWidth its url.
const (
	ThumbnailWidth = 320
	PageWidth      = 1920
)

// Picture is one size the service writes: a WebP file.
type Picture struct {
	Width, Height int
	Body          []byte
}

// Where the objects live in the uploads bucket: an owner's upload under
// uploads.Prefix (tagged pending, so the bucket's lifecycle rule removes
// one never taken after a day, as it does responders' files), the sizes
// the service wrote under MediaPrefix (kept until the theme drops the
// image). The pages group serves MediaPrefix at MediaPath: MEDIA_URL
// points at the service (docs/themes.md).
const (
	uploadPrefix = uploads.Prefix + "themes/"
	MediaPrefix  = "media/themes/"
	MediaPath    = "/media/themes/images/"
)

// PostValidity is how long the presigned POST of a background lasts
// (contract section 22: 10 minutes).
const PostValidity = 10 * time.Minute

// CacheControl is the answer's of every size: its address changes with
// each image (the image's id is in it), so it is cached for a year.
const CacheControl = "public, max-age=31536000, immutable"

// NewID is a new image's id: random, below 2^53 so that JavaScript reads
// it exactly, never 0.
func NewID() int64 {
	var b [8]byte
	rand.Read(b[:])
	return int64(binary.BigEndian.Uint64(b[:])>>11) | 1
}

// ParseUploadID is the image id an upload id names, and whether it is one
// (the decimal digits of NewID).
func ParseUploadID(s string) (int64, bool) {
	if s == "" || len(s) > 16 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n > 0 && n < 1<<53
}

// UploadKey is the object an owner uploads the theme's image to: the
// theme's id in it, so an upload made for one theme is not found under
// another.
func UploadKey(themeID, imageID int64) string {
	return fmt.Sprintf("%s%d/%d", uploadPrefix, themeID, imageID)
}

// fileName is a size's file: the theme, the image, the width asked for.
func fileName(themeID, imageID int64, width int) string {
	return fmt.Sprintf("%d-%d-%d.webp", themeID, imageID, width)
}

var mediaFile = regexp.MustCompile(`^[1-9][0-9]{0,18}-[1-9][0-9]{0,18}-(320|640|1280|1920)\.webp$`)

// MediaKey is the object of a served file name (the last segment of
// MediaPath's addresses), and whether the name is one the service makes.
func MediaKey(name string) (string, bool) {
	if !mediaFile.MatchString(name) {
		return "", false
	}
	return MediaPrefix + name, true
}

// Image is the theme's background_image for the image: its url the
// page's width, its thumbnail_url ThumbnailWidth, both /media/ paths
// that answers make absolute under MEDIA_URL. The page finds the other
// sizes by the width in the name (SizeURL).
func Image(themeID, imageID int64) *survey.BackgroundImage {
	return &survey.BackgroundImage{
		ID:           imageID,
		URL:          MediaPath + fileName(themeID, imageID, PageWidth),
		ThumbnailURL: MediaPath + fileName(themeID, imageID, ThumbnailWidth),
	}
}

// SizeURL is the address of another size of a background's url ("" when
// the url is not one the service made).
func SizeURL(url string, width int) string {
	suffix := "-" + strconv.Itoa(PageWidth) + ".webp"
	if !strings.HasSuffix(url, suffix) || !strings.Contains(url, MediaPath) {
		return ""
	}
	return strings.TrimSuffix(url, suffix) + "-" + strconv.Itoa(width) + ".webp"
}

// MediaKeys are the objects of an image's sizes.
func MediaKeys(themeID, imageID int64) []string {
	keys := make([]string, len(Widths))
	for i, w := range Widths {
		keys[i] = MediaPrefix + fileName(themeID, imageID, w)
	}
	return keys
}

// Bucket is where uploads and sizes live: the uploads bucket.
type Bucket struct {
	*uploads.Bucket
}

// ErrNoObject is the answer for an object that is not there.
var ErrNoObject = uploads.ErrNoObject

// PresignUpload presigns the owner's POST of the image: its exact size
// and content type fixed by the policy, for PostValidity. No AWS call.
func (b Bucket) PresignUpload(ctx context.Context, themeID, imageID, size int64, contentType string) (uploads.Post, error) {
	return b.PresignPostKey(ctx, UploadKey(themeID, imageID), size, contentType, PostValidity)
}

// Read is an object's bytes (at most limit+1 of them, so a caller tells
// a larger one) and its content type: one GetObject.
func (b Bucket) Read(ctx context.Context, key string, limit int64) ([]byte, string, error) {
	out, err := b.Client().GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(b.Name()), Key: aws.String(key)})
	if isMissing(err) {
		return nil, "", ErrNoObject
	}
	if err != nil {
		return nil, "", fmt.Errorf("backgrounds: get %s: %w", key, err)
	}
	defer out.Body.Close()
	body, err := io.ReadAll(io.LimitReader(out.Body, limit+1))
	if err != nil {
		return nil, "", fmt.Errorf("backgrounds: read %s: %w", key, err)
	}
	return body, aws.ToString(out.ContentType), nil
}

// Write stores the sizes of an image: one PutObject each.
func (b Bucket) Write(ctx context.Context, themeID, imageID int64, pics []Picture) error {
	keys := MediaKeys(themeID, imageID)
	for i, p := range pics {
		_, err := b.Client().PutObject(ctx, &s3.PutObjectInput{
			Bucket: aws.String(b.Name()), Key: aws.String(keys[i]), Body: strings.NewReader(string(p.Body)),
			ContentType: aws.String("image/webp"), CacheControl: aws.String(CacheControl),
		})
		if err != nil {
			return fmt.Errorf("backgrounds: put %s: %w", keys[i], err)
		}
	}
	return nil
}

// Media is a served size's bytes: one GetObject.
func (b Bucket) Media(ctx context.Context, name string) ([]byte, error) {
	key, ok := MediaKey(name)
	if !ok {
		return nil, ErrNoObject
	}
	body, _, err := b.Read(ctx, key, 8*MaxBytes)
	return body, err
}

func isMissing(err error) bool {
	var nk *types.NoSuchKey
	var nf *types.NotFound
	var api smithy.APIError
	return errors.As(err, &nk) || errors.As(err, &nf) || (errors.As(err, &api) && (api.ErrorCode() == "NoSuchKey" || api.ErrorCode() == "NotFound"))
}
