package media

// OptionNames lists the wp_options rows the computation reads: siteurl,
// upload_path and upload_url_path for [UploadsURL], and the size limits
// for [LimitsFromOptions].
func OptionNames() []string {
	names := []string{"siteurl", "upload_path", "upload_url_path"}
	for _, size := range optionSizes() {
		names = append(names, size+"_size_w", size+"_size_h")
	}
	return names
}

// optionSizes are WordPress's sizes whose limits are options.
func optionSizes() []string { return []string{"thumbnail", "medium", "medium_large", "large"} }

// LimitsFromOptions returns the Settings.Limits of WordPress's own sizes:
// thumbnail, medium, medium_large and large from the options
// <name>_size_w and <name>_size_h (option_value by option_name, read as
// PHP's (int) cast reads them, a missing option as 0), and the 1536x1536
// and 2048x2048 sizes core registers with add_image_size().
func LimitsFromOptions(options map[string]string) map[string]Dimensions {
	limits := map[string]Dimensions{
		"1536x1536": {1536, 1536},
		"2048x2048": {2048, 2048},
	}
	for _, size := range optionSizes() {
		limits[size] = Dimensions{phpIntval(options[size+"_size_w"]), phpIntval(options[size+"_size_h"])}
	}
	return limits
}
