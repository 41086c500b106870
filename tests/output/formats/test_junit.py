"""junit.xml stays a document every XML parser reads, whatever a spec or its file is called."""

from __future__ import annotations

import re
import xml.dom.minidom
import xml.etree.ElementTree as ElementTree

from astest_tasks.core.guest_text import xml_text
from astest_tasks.model.guest_report import Expectation, Suite, Verdict
from astest_tasks.model.results import SpecResult, Status
from astest_tasks.output.formats.junit import junit_xml
from tests.conftest import make_spec_result

# What a spec controls: its file's name, its tests' names, matchers, messages, values, output.
# NUL and ESC cannot be in an XML document at all, even escaped; DEL and C1 it discourages, and a
# terminal acts on them (0x9b is CSI).
HOSTILE = "a\x00b\x01c\x1b]0;pwn\x07d\x7fe\x9b2Jf\ud800g\ufffe"
# What a parser may not meet (XML 1.0's Char), and what a terminal would act on.
NOT_INERT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def hostile_result() -> SpecResult:
    failing = Expectation(
        order=0,
        verdict=Verdict.FAIL,
        instr=f"to{HOSTILE}",
        message=f"message {HOSTILE}",
        location="4:7",
        left=f'"{HOSTILE}"',
        right="1",
        kind="",
    )
    test = Suite(f"test {HOSTILE}", "test", 0, Verdict.FAIL, 0.0, 1.0, (), (failing,), ())
    return make_spec_result(
        "ctl%01x",
        Status.FAILED,
        spec=f"assembly/__tests__/ctl{HOSTILE}.spec.ts",
        mode=f"wasi{HOSTILE}",  # refused in a config, but a result may come from anywhere
        suites=(test,),
        output=f"printed {HOSTILE}\n",
    )


def test_every_attribute_and_text_a_spec_controls_is_xml_a_parser_reads() -> None:
    result = hostile_result()
    document = junit_xml([result])

    xml.dom.minidom.parseString(document)  # raises on a document that is not well-formed
    root = ElementTree.fromstring(document)
    assert not NOT_INERT.search(document)
    suite = root.find("testsuite")
    assert suite is not None
    assert suite.get("file") == xml_text(result.spec)
    assert suite.get("name") == xml_text(f"{result.mode}:{result.spec_id}")
    case = suite.find("testcase")
    assert case is not None
    assert case.get("file") == xml_text(result.spec)
    assert case.get("classname") == xml_text(f"{result.mode}.{result.spec_id}")
    assert case.get("name") == xml_text(f"test {HOSTILE}")
    failure = case.find("failure")
    assert failure is not None
    assert failure.get("type") == xml_text(f"to{HOSTILE}")
    assert xml_text(HOSTILE) in (failure.get("message") or "")
    assert (failure.text or "").startswith(xml_text(f"{result.spec}:4:7\n"))
    assert xml_text(HOSTILE) in (suite.findtext("system-out") or "")
