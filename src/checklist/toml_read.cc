// [tool.tileadvise] of a pyproject.toml, parsed by toml++ (Debian's
// libtomlplusplus-dev, used header-only so that no library is needed where
// the program runs). C linkage: see pyproject.h.
#define TOML_HEADER_ONLY 1
#define TOML_EXCEPTIONS 0
#include <toml++/toml.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include "config.h"
#include "checklist/pyproject.h"
}

namespace {

char *dup(const std::string &s)
{
	char *d = static_cast<char *>(std::malloc(s.size() + 1));
	if (!d)
		std::abort();
	std::memcpy(d, s.c_str(), s.size() + 1);
	return d;
}

std::string where(const char *path, const toml::source_region &r)
{
	return std::string(path) + ":" + std::to_string(r.begin.line) + ":" + std::to_string(r.begin.column);
}

// A string, or an array of strings: its items. False when it is neither.
bool strings(const toml::node &n, std::vector<std::string> &out)
{
	if (auto s = n.value<std::string>()) {
		out.push_back(*s);
		return true;
	}
	const toml::array *a = n.as_array();
	if (!a)
		return false;
	for (const toml::node &item : *a) {
		auto s = item.value<std::string>();
		if (!s)
			return false;
		out.push_back(*s);
	}
	return true;
}

std::string joined(const std::vector<std::string> &v)
{
	std::string s;
	for (const std::string &x : v)
		s += (s.empty() ? "" : ",") + x;
	return s;
}

int read_table(const char *path, const toml::table &t, ta_project *p, FILE *warn, std::string &error)
{
	for (auto &&[key, node] : t) {
		std::string k(key.str());
		std::vector<std::string> v;
		std::string at = where(path, node.source());
		if (k == "select" || k == "ignore" || k == "extend-select") {
			if (!strings(node, v)) {
				error = at + ": " + k + " takes a string or a list of strings (ids, sections, ALL)";
				return -1;
			}
			char *&slot = k == "select" ? p->select : k == "ignore" ? p->ignore : p->extend_select;
			std::free(slot);
			slot = dup(joined(v));
		} else if (k == "per-file-ignores") {
			const toml::table *pt = node.as_table();
			if (!pt) {
				error = at + ": per-file-ignores takes a table: \"PATTERN\" = [ids]";
				return -1;
			}
			for (auto &&[pat, ids] : *pt) {
				std::vector<std::string> iv;
				if (!strings(ids, iv)) {
					error = where(path, ids.source()) + ": per-file-ignores: \"" + std::string(pat.str()) +
						"\" takes a string or a list of strings (ids, sections, ALL)";
					return -1;
				}
				size_t n = p->n_pfi + 1;
				p->pfi_patterns = static_cast<char **>(std::realloc(p->pfi_patterns, n * sizeof(char *)));
				p->pfi_ids = static_cast<char **>(std::realloc(p->pfi_ids, n * sizeof(char *)));
				if (!p->pfi_patterns || !p->pfi_ids)
					std::abort();
				p->pfi_patterns[p->n_pfi] = dup(std::string(pat.str()));
				p->pfi_ids[p->n_pfi] = dup(joined(iv));
				p->n_pfi = n;
			}
		} else if (k == "exclude" || k == "extend-exclude") {
			if (!strings(node, v)) {
				error = at + ": " + k + " takes a list of patterns";
				return -1;
			}
			for (const std::string &pat : v) {
				p->exclude = static_cast<char **>(
					std::realloc(p->exclude, (p->n_exclude + 1) * sizeof *p->exclude));
				if (!p->exclude)
					std::abort();
				p->exclude[p->n_exclude++] = dup(pat);
			}
		} else if (k == "output-format") {
			auto s = node.value<std::string>();
			if (!s) {
				error = at + ": output-format takes a string (text, json, sarif, github)";
				return -1;
			}
			std::free(p->output_format);
			p->output_format = dup(*s);
		} else if (k == "respect-gitignore" || k == "preview") {
			if (!node.is_boolean()) {
				error = at + ": " + k + " takes true or false";
				return -1;
			}
			(k == "preview" ? p->preview : p->respect_gitignore) = *node.value<bool>() ? 1 : 0;
		} else {
			std::fprintf(warn, "tileadvise: %s: '%s' left out: [tool.tileadvise] reads select, ignore, "
					   "extend-select, per-file-ignores, exclude, extend-exclude, output-format, "
					   "respect-gitignore and preview\n",
				     at.c_str(), k.c_str());
		}
	}
	return 1;
}

} // namespace

extern "C" int ta_project_parse(const char *path, ta_project *p, FILE *warn, char **err)
{
	try {
		toml::parse_result r = toml::parse_file(path);
		if (!r) {
			const toml::parse_error &e = r.error();
			*err = dup(where(path, e.source()) + ": not valid TOML: " + std::string(e.description()));
			return -1;
		}
		const toml::table *t = r.table()["tool"]["tileadvise"].as_table();
		if (!t) {
			if (r.table()["tool"]["tileadvise"]) {
				*err = dup(where(path, r.table()["tool"]["tileadvise"].node()->source()) +
					   ": tool.tileadvise is not a table");
				return -1;
			}
			return 0;
		}
		std::string error;
		int rc = read_table(path, *t, p, warn, error);
		if (rc < 0)
			*err = dup(error);
		return rc;
	} catch (const std::exception &e) {
		*err = dup(std::string(path) + ": cannot be read: " + e.what());
		return -1;
	}
}
