# Exports torchvision ResNet-50 (v1.5) / MobileNetV2 (random weights, weights=None) to ONNX with the
# legacy TorchScript exporter (torch.onnx.export(..., dynamo=False)), opset 17, then checks each file
# against PyTorch with onnxruntime.
#   training=PRESERVE + model.eval() -> BatchNormalization nodes kept (training_mode=0)
#   training=EVAL (exporter default) -> exporter's eval peephole folds BN into Conv ("-bnfused" files)
#   randomize_bn=True: BN weight/bias/running_mean/running_var set to random values (like a trained
#     model). With torchvision's fresh init they are all 1s/0s, identical tensors that the exporter
#     deduplicates into one initializer + Identity nodes ("-freshinit" file).
import torch, torchvision, numpy as np, onnxruntime as ort
out = "/work/onnx-models"
def exp(ctor, name, dyn=False, fuse_bn=False, randomize_bn=True):
    torch.manual_seed(0)
    model = ctor(weights=None).eval()
    if randomize_bn:
        with torch.no_grad():
            for m in model.modules():
                if isinstance(m, torch.nn.BatchNorm2d):
                    m.weight.uniform_(0.5, 1.5); m.bias.uniform_(-0.1, 0.1)
                    m.running_mean.uniform_(-0.1, 0.1); m.running_var.uniform_(0.5, 1.5)
    x = torch.randn(1, 3, 224, 224)
    kw = dict(input_names=["input"], output_names=["output"], opset_version=17,
              do_constant_folding=True, export_params=True, dynamo=False,
              training=torch.onnx.TrainingMode.EVAL if fuse_bn else torch.onnx.TrainingMode.PRESERVE)
    if dyn:
        kw["dynamic_axes"] = {"input": {0: "batch"}, "output": {0: "batch"}}
    path = f"{out}/{name}.onnx"
    torch.onnx.export(model, (x,), path, **kw)
    xs = torch.randn(2 if dyn else 1, 3, 224, 224)
    with torch.no_grad(): ref = model(xs).numpy()
    got = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, {"input": xs.numpy()})[0]
    print(f"exported {name}: ort vs torch max abs diff {np.abs(got - ref).max():.2e} (out max {np.abs(ref).max():.2e})")
R, M = torchvision.models.resnet50, torchvision.models.mobilenet_v2
exp(R, "resnet50")
exp(R, "resnet50-dynbatch", dyn=True)
exp(M, "mobilenetv2")
exp(R, "resnet50-bnfused", fuse_bn=True)
exp(M, "mobilenetv2-bnfused", fuse_bn=True)
exp(R, "resnet50-freshinit", randomize_bn=False)
