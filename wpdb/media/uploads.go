package media

import "strings"

// UploadsURL is wp_upload_dir()'s baseurl as _wp_upload_dir() computes it
// for a single site: uploadURLPath (the upload_url_path option) as it is
// when set (PHP-true); else contentURL + "/uploads" when uploadPath is
// empty, "0", "wp-content/uploads" or absolute, contentURL being
// WP_CONTENT_URL or by default siteURL + "/wp-content"; else siteURL + "/" +
// uploadPath. siteURL is the siteurl option, or WP_SITEURL without its
// trailing slash: the uploads follow siteurl, not home. A stream path
// (s3://…) counts as relative; the UPLOADS constant and multisite paths are
// not covered.
func UploadsURL(siteURL, contentURL, uploadURLPath, uploadPath string) string {
	if phpTruthy(uploadURLPath) {
		return uploadURLPath
	}
	if contentURL == "" {
		contentURL = siteURL + "/wp-content"
	}
	// _wp_upload_dir compares upload_path with the directory it makes of
	// it; the two are equal exactly when upload_path is absolute.
	path := phpTrim(uploadPath)
	if !phpTruthy(path) || path == "wp-content/uploads" || pathIsAbsolute(path) {
		return contentURL + "/uploads"
	}
	return trailingslashit(siteURL) + path
}

// pathIsAbsolute is WordPress's path_is_absolute() without its two file
// system checks (realpath() and stream wrappers).
func pathIsAbsolute(p string) bool {
	if p == "" || p[0] == '.' {
		return false
	}
	if len(p) >= 3 && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z') && p[1] == ':' && p[2] == '\\' {
		return true // C:\
	}
	return p[0] == '/' || p[0] == '\\'
}

// attachmentURL is wp_get_attachment_url(): the attached file under the
// uploads URL, or the guid when there is no file. It returns "" where
// WordPress returns false.
//
// A pre-2.7 absolute _wp_attached_file is recognised, as WordPress does as
// a fallback, by the "wp-content/uploads" in it; WordPress first matches it
// against the uploads directory on its disk, which gives the same URL
// unless the directory was moved away from wp-content/uploads.
func (s Settings) attachmentURL(a Attachment) string {
	url := ""
	if phpTruthy(a.File) {
		if strings.Contains(a.File, "wp-content/uploads") {
			url = trailingslashit(s.UploadsURL+"/"+relativePath(a.File)) + wpBasename(a.File)
		} else {
			url = s.UploadsURL + "/" + a.File
		}
	}
	if url == "" {
		url = a.GUID
	}
	if !phpTruthy(url) {
		return ""
	}
	return url
}

// relativePath is _wp_get_attachment_relative_path(): the directory of a
// file relative to the uploads directory, "" for none.
func relativePath(file string) string {
	dir := phpDirname(file)
	if dir == "." {
		return ""
	}
	if i := strings.Index(dir, "wp-content/uploads"); i >= 0 {
		// Back compat for pre-2.7 uploads.
		dir = strings.TrimLeft(dir[i+len("wp-content/uploads"):], "/")
	}
	return dir
}
