package survey

// Theme is a survey's look.
type Theme struct {
	ID                            int64           `json:"id"`
	Order                         int64           `json:"order"`
	BackgroundColor               string          `json:"background_color"`
	QuestionColor                 string          `json:"question_color"`
	AnswerColor                   string          `json:"answer_color"`
	ButtonColor                   string          `json:"button_color"`
	AccentColor                   string          `json:"accent_color"`
	FontFamily                    int64           `json:"font_family"`
	FontSize                      int64           `json:"font_size"`
	BackgroundImage               BackgroundImage `json:"background_image"`
	BackgroundImageID             int64           `json:"background_image_id"`
	BackgroundImageRepeat         int64           `json:"background_image_repeat"`
	BackgroundImageFit            int64           `json:"background_image_fit"`
	BackgroundImagePosition       int64           `json:"background_image_position"`
	BackgroundImageBrightness     int64           `json:"background_image_brightness"`
	BackgroundImageSizePercentage int64           `json:"background_image_size_percentage"`
	IsPublic                      bool            `json:"is_public"`
	ThumbnailURL                  string          `json:"thumbnail_url"`
}

// BackgroundImage is a theme's background picture.
type BackgroundImage struct {
	ID           int64  `json:"id"`
	URL          string `json:"url"`
	ThumbnailURL string `json:"thumbnail_url"`
}

// DefaultTheme is the public theme every new survey starts with. Its media
// paths resolve against MEDIA_URL, like the catalog's.
func DefaultTheme() Theme {
	return Theme{
		ID: 1, Order: 1,
		BackgroundColor: "#FFFFFF", QuestionColor: "#212121", AnswerColor: "#424242",
		ButtonColor: "#1E88E5", AccentColor: "#1E88E5",
		FontFamily: 1, FontSize: 2,
		BackgroundImage: BackgroundImage{
			ID: 1, URL: "/media/themes/backgrounds/plain.png", ThumbnailURL: "/media/themes/backgrounds/plain-thumb.png",
		},
		BackgroundImageID: 1, BackgroundImageRepeat: 1, BackgroundImageFit: 1, BackgroundImagePosition: 1,
		BackgroundImageBrightness: 100, BackgroundImageSizePercentage: 100,
		IsPublic: true, ThumbnailURL: "/media/themes/default-thumb.png",
	}
}
