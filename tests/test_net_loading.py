"""How the command line loads a net's data file: the hint to give a
registry (--functions) only where the file names what the registry lacks,
and data files known by their suffix in any case."""

import pytest

from cli.net_loading import LoadError, load_net

HINT = "(a net naming functions needs --functions MODULE"
PLACE = '[places.P]\ncolour = "int"\ninitial = [1]\n'


@pytest.mark.parametrize("text", [
    '[places.P]\ncolour = "integer"\n',
    '[places.P]\ncolour = "int |"\n',
    PLACE + '[transitions.T]\nguard = "(lambda: True)()"\ninputs = { P = "x" }\n',
    PLACE + '[transitions.T]\ncode = "import os"\ninputs = { P = "x" }\n',
])
def test_an_error_that_mentions_the_registry_gets_no_hint_to_give_one(tmp_path, text):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(LoadError) as caught:
        load_net(str(path))
    assert HINT not in str(caught.value)


def test_a_function_the_file_names_gets_the_hint_without_a_registry_only(tmp_path):
    path = tmp_path / "net.toml"
    path.write_text('[functions]\nschedule = "easy_pass_on_nodes"\n')
    with pytest.raises(LoadError, match=r"name 'easy_pass_on_nodes' is not defined .*"
                                        + HINT.replace("(", r"\(")):
        load_net(str(path))
    path.write_text('[functions]\nschedule = "easy_pass_on_nodez"\n')
    with pytest.raises(LoadError) as caught:
        load_net(str(path), "nets.puppet")
    assert "the registry names: " in str(caught.value) and HINT not in str(caught.value)


def test_a_data_file_s_suffix_is_known_in_any_case(tmp_path):
    path = tmp_path / "PC.TOML"
    path.write_text('[places.P]\ncolour = "int"\ninitial = [1]\n')
    assert list(load_net(str(path)).places) == ["P"]


def test_a_registry_of_one_s_own_is_given_as_a_python_file(tmp_path, monkeypatch):
    # only a dotted name was taken, and the cpn script does not import from the working
    # directory: a registry beside the net file was "No module named 'mine'"
    (tmp_path / "mine.py").write_text("def double(x):\n    return 2 * x\n\n"
                                      "FUNCTIONS = {'double': double}\n")
    path = tmp_path / "net.toml"
    path.write_text('[functions]\nf = "double"\n' + PLACE)
    monkeypatch.chdir(tmp_path)
    assert load_net(str(path), "mine.py").env["f"](2) == 4
    with pytest.raises(LoadError, match=r"^--functions mine: cannot import it: .* \(give a "
                                        r"\.py file path"):
        load_net(str(path), "mine")
    with pytest.raises(LoadError, match=r"^--functions other\.py: no such file: other\.py$"):
        load_net(str(path), "other.py")
