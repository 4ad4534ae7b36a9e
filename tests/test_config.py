"""The config schema (``core/config.py``) and repository URL rules (``core/urls.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from miles_docs_plugin.core.config import load_config, parse_config
from miles_docs_plugin.core.errors import ConfigError
from miles_docs_plugin.core.urls import mask, parse_repo_url

BASE = Path("/srv/host")


def cfg(**top: object) -> dict[str, object]:
    source = {"name": "diffusion", "repo": "https://github.com/radixark/miles_diffusion.git"}
    data: dict[str, object] = {"sources": [source]}
    data.update(top)
    return data


def test_defaults_fit_the_miles_layout() -> None:
    config = parse_config(cfg(), base_dir=BASE, env={})
    (source,) = config.sources
    assert (source.docs_dir, source.mount, source.title, source.ref) == (
        "docs", "diffusion", "Diffusion", "main")
    assert source.web_url == "https://github.com/radixark/miles_diffusion"
    assert source.display == "radixark/miles_diffusion"
    assert config.lock_file == BASE / "miles-docs.lock"
    assert config.banner is True and config.unresolved == "warn" and not config.offline


def test_unknown_key_suggests_the_nearest() -> None:
    data = cfg()
    data["sources"][0]["docsdir"] = "docs"  # type: ignore[index]
    with pytest.raises(ConfigError, match=r"unknown key 'docsdir'.*did you mean 'docs_dir'"):
        parse_config(data, base_dir=BASE, env={})
    with pytest.raises(ConfigError, match=r"unknown key 'host_url'.*did you mean 'host_urls'"):
        parse_config(cfg(host_url=[]), base_dir=BASE, env={})


def test_wrong_types_and_missing_keys() -> None:
    with pytest.raises(ConfigError, match=r"'offline' must be bool"):
        parse_config(cfg(offline="yes"), base_dir=BASE, env={})
    with pytest.raises(ConfigError, match=r"missing required key 'repo'"):
        parse_config({"sources": [{"name": "x"}]}, base_dir=BASE, env={})
    with pytest.raises(ConfigError, match=r"`sources:` is empty"):
        parse_config({"sources": []}, base_dir=BASE, env={})


def test_duplicate_names_and_overlapping_mounts() -> None:
    repo = "https://github.com/a/b.git"
    with pytest.raises(ConfigError, match="duplicate source name 'a'"):
        parse_config({"sources": [{"name": "a", "repo": repo}, {"name": "a", "repo": repo}]},
                     base_dir=BASE, env={})
    with pytest.raises(ConfigError, match="both mount at 'x'"):
        parse_config({"sources": [{"name": "a", "repo": repo, "mount": "x"},
                                  {"name": "b", "repo": repo, "mount": "x/"}]},
                     base_dir=BASE, env={})
    with pytest.raises(ConfigError, match="overlaps mount"):
        parse_config({"sources": [{"name": "a", "repo": repo, "mount": "x"},
                                  {"name": "b", "repo": repo, "mount": "x/y"}]},
                     base_dir=BASE, env={})


@pytest.mark.parametrize("mount", ["/abs", "../up", "a/../../b", "."])
def test_mount_must_be_a_relative_folder(mount: str) -> None:
    data = cfg()
    data["sources"][0]["mount"] = mount  # type: ignore[index]
    with pytest.raises(ConfigError, match="mount"):
        parse_config(data, base_dir=BASE, env={})


def test_environment_overrides(tmp_path: Path) -> None:
    env = {"MILES_DOCS_CACHE": str(tmp_path / "c"), "MILES_DOCS_OFFLINE": "1",
           "MILES_DOCS_LOCAL_DIFFUSION": "../checkout"}
    config = parse_config(cfg(), base_dir=BASE, env=env)
    assert config.cache_dir == tmp_path / "c"
    assert config.offline
    assert config.sources[0].local == Path("/srv/checkout")


def test_yaml_errors_name_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "miles-docs.yml"
    path.write_text("sources:\n  - name: x\n    repo: [unclosed\n")
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert f"{path}:" in str(err.value) and "invalid YAML" in str(err.value)
    with pytest.raises(ConfigError, match=r"config file not found.*miles-docs init"):
        load_config(tmp_path / "nope.yml")


@pytest.mark.parametrize(("url", "why"), [
    ("--upload-pack=touch pwned", "starts with '-'"),
    ("-oProxyCommand=x", "starts with '-'"),
    ("ext::sh -c touch% pwned", "remote helpers"),
    (" https://github.com/a/b.git", "white space"),
    ("ext::git-remote", "remote helpers"),
    ("fd::17", "remote helpers"),
    ("ftp://example.org/r.git", "transport 'ftp' is not allowed"),
    ("https://user:secret@github.com/a/b.git", "carries credentials"),
    ("https://ghp_token@github.com/a/b.git", "carries credentials"),
])
def test_unsafe_repository_urls_are_refused(url: str, why: str) -> None:
    with pytest.raises(ConfigError, match=why) as err:
        parse_repo_url(url, base_dir=BASE)
    assert "secret" not in str(err.value) and "ghp_token" not in str(err.value)


def test_repository_url_forms() -> None:
    ssh = parse_repo_url("git@github.com:radixark/miles_diffusion.git", base_dir=BASE)
    assert (ssh.transport, ssh.web_url) == ("ssh", "https://github.com/radixark/miles_diffusion")
    gl = parse_repo_url("https://gitlab.com/g/sub/p.git", base_dir=BASE)
    assert gl.web_url == "https://gitlab.com/g/sub/p"
    local = parse_repo_url("../upstream.git", base_dir=BASE)
    assert local.fetch_url == "file:///srv/upstream.git" and local.is_local
    assert mask("https://a:b@h/x and ssh://u@h") == "https://***@h/x and ssh://***@h"


@pytest.mark.skipif(not getattr(__import__("yaml"), "__with_libyaml__", False),
                    reason="PyYAML without libyaml")
def test_the_config_and_the_lock_are_read_with_libyaml_and_errors_said_as_before(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # every build reads both files: libyaml's loaders read them about six times faster; a
    # broken file is read again by the Python loaders, whose messages the errors quote
    import yaml

    from miles_docs_plugin.core import config

    loaders: list[type] = []
    real = yaml.load

    def spy(stream: str, Loader: type) -> object:
        loaders.append(Loader)
        return real(stream, Loader=Loader)

    monkeypatch.setattr(yaml, "load", spy)
    path = tmp_path / "x.yml"
    path.write_text("sources:\n  - name: a\n    commit: 0123\n    n: 0o17\n    on: yes\n")
    for strings, python in ((False, config._StrictSafeLoader),
                            (True, config._StrictBaseLoader)):
        loaders.clear()
        assert config.load_yaml_file(path, "config", strings=strings) == real(
            path.read_text(), Loader=python)
        assert len(loaders) == 1 and issubclass(loaders[0], (yaml.CSafeLoader, yaml.CBaseLoader))
    for text in ("a: 1\na: 2\n", "a: 1\n b: : 2\n", "a: [1\n", "\tb: 1\n"):
        path.write_text(text)
        with pytest.raises(ConfigError) as fast:
            config.load_yaml_file(path, "config")
        monkeypatch.setattr(config, "_FastSafeLoader", config._StrictSafeLoader)
        with pytest.raises(ConfigError) as slow:
            config.load_yaml_file(path, "config")
        monkeypatch.undo()
        monkeypatch.setattr(yaml, "load", spy)
        assert str(fast.value) == str(slow.value)
