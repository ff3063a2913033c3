#!/usr/bin/env python3
"""Writes the Alipay trade bill samples keel's tests read: a ZIP of GBK CSVs as
Alipay delivers its 业务账单 (detail and summary files, GBK file names), made
from the layout Alipay documents, plus broken variants. Run from this folder."""
import zipfile

PID = "20881234567890120156"
HEADER = ("支付宝交易号,商户订单号,业务类型,商品名称,创建时间,完成时间,门店编号,门店名称,操作员,"
          "终端号,对方账户,订单金额（元）,商家实收（元）,支付宝红包（元）,集分宝（元）,支付宝优惠（元）,"
          "商家优惠（元）,券核销金额（元）,券名称,商家红包消费金额（元）,卡消费金额（元）,"
          "退款批次号/请求号,服务费（元）,分润（元）,备注")
ROWS = [
    ("2026120122001400001000000001", "ch_alA0000001", "交易", "2026-12-01 09:00:00",
     "2026-12-01 09:00:05", "100.00", "100.00", "", "-0.60"),
    ("2026120122001400001000000002", "ch_alB0000002", "交易", "2026-12-01 23:59:50",
     "2026-12-01 23:59:58", "25.50", "25.50", "", "-0.15"),
    ("2026120122001400001000000001", "ch_alA0000001", "退款", "2026-12-01 18:00:00",
     "2026-12-01 18:00:03", "-30.00", "-30.00", "re_alA0000001", "0.18"),
]


def detail(trades_total="125.50", raw_tail=b""):
    lines = ["#支付宝业务明细查询", f"#账号：[{PID}]",
             "#起始日期：[2026年12月01日 00:00:00]   终止日期：[2026年12月02日 00:00:00]",
             "#-----------------------------------------业务明细列表----------------------------------------",
             HEADER]
    for trade, order, kind, created, done, ordered, received, request, fee in ROWS:
        lines.append(",".join([trade + "\t", order + "\t", kind, "keel 样例", created, done, "", "",
                               "", "", "ab***@example.com", ordered, received, "0.00", "0.00",
                               "0.00", "0.00", "0.00", "", "0.00", "0.00", request, fee, "0.00",
                               ""]))
    lines += ["#-----------------------------------------业务明细列表结束------------------------------------",
              f"#交易合计：2笔，商家实收共{trades_total}元，商家优惠共0.00元",
              "#退款合计：1笔，商家实收退款共-30.00元，商家优惠退款共0.00元",
              "#导出时间：[2026年12月02日 09:30:00]"]
    return "\r\n".join(lines).encode("gbk") + b"\r\n" + raw_tail


def summary():
    lines = ["#支付宝业务汇总查询", f"#账号：[{PID}]",
             "#-----------------------------------------业务汇总列表----------------------------------------",
             "门店编号,门店名称,交易订单总笔数,退款订单总笔数,订单金额（元）,商家实收（元）,服务费（元）",
             ",,2,1,95.50,95.50,-0.57",
             "#-----------------------------------------业务汇总列表结束------------------------------------"]
    return "\r\n".join(lines).encode("gbk") + b"\r\n"


def write(path, detail_bytes):
    # Alipay stores GBK names without the UTF-8 flag, which Python's zipfile
    # will not write: the entries get ASCII stand-ins of the same length, and
    # the GBK bytes go in afterwards (names are outside the CRC).
    detail_name, summary_name = "业务明细".encode("gbk"), "业务明细(汇总)".encode("gbk")
    stand_in = {detail_name: b"DETAIL_" + b"X" * (len(detail_name) - 7),
                summary_name: b"SUMMARY" + b"Y" * (len(summary_name) - 7)}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in ((stand_in[detail_name], detail_bytes),
                           (stand_in[summary_name], summary())):
            info = zipfile.ZipInfo(f"{PID}_20261201_" + name.decode() + ".csv",
                                   (2026, 12, 2, 9, 30, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    with open(path, "rb") as f:
        raw = f.read()
    for real, fake in stand_in.items():
        raw = raw.replace(fake, real)
    with open(path, "wb") as f:
        f.write(raw)


write("alipay-tradebill.zip", detail())
write("alipay-tradebill-totals-off.zip", detail(trades_total="125.51"))
write("alipay-tradebill-bad-gbk.zip", detail(raw_tail=b"#\xff\xfe\r\n"))
